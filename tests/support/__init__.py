"""The tests' harnesses: real terminals, in-memory tables and servers, real processes."""
