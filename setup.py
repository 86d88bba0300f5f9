"""Build hook: the wheel carries the repository's top-level `templates/` inside the package.

Why: the design card keeps `templates/` at the top of the repository, beside `competitions/`
and `leaderboard/`, where maintainers edit them; but `gnncb demo`, the boards, the site and
the LLM prompts render them at run time, so a wheel installed outside any checkout needs a
copy. setuptools' package-data only reaches files inside a package folder, hence this one
step: after the ordinary `build_py`, copy `templates/` to `evaluator/_templates/` in the build
tree. `evaluator.paths.templates_dir` prefers the checkout's folder and falls back to that
copy. An editable install (`pip install -e .`) reads the checkout in place and gets no copy.
Everything else is configured in pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TEMPLATES = Path(__file__).resolve().parent / "templates"
PACKAGED = Path("evaluator") / "_templates"  # evaluator.paths.PACKAGED_TEMPLATES


class BuildPyWithTemplates(build_py):
    def _template_targets(self) -> list[tuple[Path, Path]]:
        if not TEMPLATES.is_dir():
            # an sdist made without MANIFEST.in's graft would build a wheel that cannot run
            raise FileNotFoundError(f"{TEMPLATES}: templates folder missing from the source tree")
        target = Path(self.build_lib) / PACKAGED
        return [(src, target / src.relative_to(TEMPLATES))
                for src in sorted(TEMPLATES.rglob("*"))
                if src.is_file() and "__pycache__" not in src.parts]

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        for src, dst in self._template_targets():
            self.mkpath(str(dst.parent))
            self.copy_file(str(src), str(dst))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:  # type: ignore[override]
        outputs = super().get_outputs(include_bytecode)
        if self.editable_mode:
            return outputs
        return outputs + [str(dst) for _, dst in self._template_targets()]


setup(cmdclass={"build_py": BuildPyWithTemplates})
