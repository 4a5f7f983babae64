"""Front doors the host opens for friends with nothing installed: an SSH server and a web page.

Every visitor gets the same game interface as `cthulhu join`, run as its own
process (`cthulhu join --kiosk`, forked by a warm parent that has imported it all:
`zygote`) that connects to the host through the normal
protocol on loopback: a peer like any other, with its own seat token. Nothing
here imports the host or Textual or touches a game (the zygote is a program of its own); the host stays
headless-capable and front-end-free, and a visitor's interface can never reach
the host's game object. `doors.FrontDoors` runs both doors on an asyncio loop in a thread of
their own.
"""
