"""The code-track pull-request pipeline: phase 1 judges in the sandbox, phase 2 publishes."""
