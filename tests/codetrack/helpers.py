"""Shared inputs of the code-track tests (not a test module: pytest does not collect it).

Why one copy: the CLI tests submit this solution as a file and the LLM tests return it as a
model answer; both need the same known-correct lc207 (course schedule) solution.
"""

from __future__ import annotations

# A correct lc207 solution: Kahn's algorithm, all courses finish iff the graph is acyclic.
KAHN = """\
from collections import deque
from typing import List


class Solution:
    def canFinish(self, numCourses: int, prerequisites: List[List[int]]) -> bool:
        indegree = [0] * numCourses
        after = [[] for _ in range(numCourses)]
        for a, b in prerequisites:
            after[b].append(a)
            indegree[a] += 1
        queue = deque(i for i in range(numCourses) if indegree[i] == 0)
        done = 0
        while queue:
            node = queue.popleft()
            done += 1
            for nxt in after[node]:
                indegree[nxt] -= 1
                if indegree[nxt] == 0:
                    queue.append(nxt)
        return done == numCourses
"""
