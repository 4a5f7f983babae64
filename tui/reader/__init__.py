"""The reader mode (`--reader` on `play`, `join` and the doors): the game as plain lines of text.

No panes, no redraws, no escape sequences: one sentence per line for everything that happens
(the same sentences the Log tells, from the modes' narrators), the choices as a numbered list
(the engine's own options, as the prompt bar words them), and the board, the odds and help when
asked for. Lines are wrapped to the terminal's width (80 on a pipe), at least 40 columns, so it
reads the same to a screen reader over `ssh`, in a phone's browser tab and to a script on a pipe.

It is a peer like every front end: `session` drives `net.client`'s trio `PeerSession`s over the
host's port, as `cthulhu join` does. Nothing here imports Textual.
"""
