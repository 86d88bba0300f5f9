"""`python -m evaluator.sandbox`: what isolation and memory bound runs get on this machine."""

from evaluator.sandbox import cgroup_memory_status, detect_isolation

found = detect_isolation()
print(f"isolation: {found.level} (mechanism {found.mechanism}) {found.detail}".rstrip())
print(f"memory: {cgroup_memory_status()}")
