"""Agent mode: an external coding-agent command works in the workspace under the same budget.

Why inside the same sandbox: in GNN-CB's agent mode an autonomous system inspects the
repository, writes and runs code and repairs it itself; whatever it runs is as untrusted as an
API model's code, so the command runs in the sandbox with the same public files, limits and
repair budget, and its output is simply the workspace's predictions.csv, checked and sealed
like any other. The agent reads the same instantiated frozen prompt (PROMPT.md); after an
invalid round it is started again with FEEDBACK.md, at most k times. The workspace persists
across rounds so the agent can continue its own work.

Limitation, on purpose: the sandbox has no network, so an agent that calls a hosted model from
inside cannot run here; see docs/llm.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator import settings
from evaluator.errors import ConfigError
from evaluator.llm import session as sessions
from evaluator.llm.execute import check_predictions, make_workspace, read_solution, run_command
from evaluator.sandbox import SandboxError, write_file

PROMPT_FILE = "PROMPT.md"
FEEDBACK_FILE = "FEEDBACK.md"


@dataclass(frozen=True)
class AgentCommand:
    argv: tuple[str, ...]
    mounts: tuple[Path, ...] = ()  # read-only host paths the command needs (its own files)

    @property
    def label(self) -> str:
        names = [Path(a).name for a in self.argv[:2]]
        return "agent:" + " ".join(names)[:180]


def run_agent(competition: Path, model: str, agent: AgentCommand,
              options: sessions.RunOptions, *, echo: sessions.Echo | None = None
              ) -> dict[str, Any]:
    """Run the agent command for up to 1 + repairs rounds; return the run summary."""
    if not agent.argv:
        raise ConfigError("--agent-command is empty; give the command that runs the agent")
    for mount in agent.mounts:
        if not Path(mount).exists():
            raise ConfigError(f"--agent-mount {mount}: no such file or folder")
    session = sessions.begin(competition, model, entrant="llm-agent", provider=agent.label,
                             options=options, echo=echo)
    workspace = session.run / "workspace"
    try:
        make_workspace(workspace, session.competition)
        write_file(workspace, PROMPT_FILE, session.prompt.text.encode())
        message = session.prompt.text
        for index in range(1, session.max_attempts + 1):
            env = settings.agent_environment(
                prompt_file=PROMPT_FILE, feedback_file=FEEDBACK_FILE if index > 1 else "",
                attempt=index, max_attempts=session.max_attempts, model=model,
                wall_seconds=session.limits.wall_seconds)
            result = run_command(list(agent.argv), workspace, session.limits, env=env,
                                 readonly_paths=tuple(agent.mounts),
                                 require_sandbox=options.require_sandbox)
            check = check_predictions(session.competition, session.spec, workspace)
            record = session.record_attempt(
                index, prompt=message, completion=None, parsed=None,
                code=read_solution(workspace), result=result, check=check, workspace=workspace)
            if record["valid"]:
                assert check.checked is not None
                session.discard_workspace(workspace)
                return session.finish(check.checked)
            if index < session.max_attempts:
                message = session.feedback(index, None, result, check, workspace)
                # the agent may have left a symlink (to a host file), a FIFO or a directory
                # here: write_file removes it and creates a fresh file, following nothing
                write_file(workspace, FEEDBACK_FILE, message.encode())
        session.discard_workspace(workspace)
        return session.finish(None)
    except SandboxError as err:
        session.discard_after_error(workspace)
        return session.error(err)
    except BaseException:
        session.discard_after_error(workspace)
        raise
