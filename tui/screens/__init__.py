"""The app's screens: the game, the title form, the replay viewer, and the dialogs (each a `ModalScreen[T]`)."""
