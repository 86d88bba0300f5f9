"""What the sandbox's busy-machine tests share: one recipe for a contended CPU.

Why a recipe inside the workload: pinning the judge from outside does not carry over to what
it starts, so the program under test makes its own contention (itself and three spinners on
one CPU: a quarter of a CPU), whatever else the machine runs.
"""

CONTENDED = """
    import os, time
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    for _ in range(3):
        if os.fork() == 0:
            while True:
                pass
    """
WORK = 0.5  # CPU seconds the program (or frame) needs
WALL = 1.5  # its wall allowance: over what WORK (+ start-up) needs, under what 1/4 CPU takes
