"""Distances on the map: breadth-first, so "towards" always means a shortest path."""

from __future__ import annotations

from collections import deque


def distances(adj: dict[str, list[str]], target: str) -> dict[str, int]:
    dist = {target: 0}
    todo = deque([target])
    while todo:
        here = todo.popleft()
        for nxt in adj[here]:
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                todo.append(nxt)
    return dist


def next_steps(adj: dict[str, list[str]], start: str, target: str) -> list[str]:
    """Every neighbour of `start` on some shortest path to `target` (ties are the caller's choice)."""
    if start == target:
        return []
    dist = distances(adj, target)
    if start not in dist:
        return []
    return sorted(n for n in adj[start] if dist.get(n, -1) == dist[start] - 1)
