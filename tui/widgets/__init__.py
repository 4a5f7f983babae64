"""The reusable widgets: view panes and the Log drawn with the line API, the prompt bar, the chat line."""
