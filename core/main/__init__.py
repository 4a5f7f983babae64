"""The main game (seed 001): investigators against a ritual and its Elder One."""
