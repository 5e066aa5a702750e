"""Without PettingZoo or OpenSpiel installed, what needs them says so in one line
(docs/envs.md): the environments, and the openspiel-* agents in a tournament."""

from __future__ import annotations

import subprocess
import sys

BLOCK = "import sys; sys.modules[{module!r}] = None\n"  # makes `import module` fail as if not installed


def _run(module: str, code: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK.format(module=module) + code], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def test_a_tournament_with_openspiel_agents_is_a_one_line_error_without_openspiel(tmp_path):
    code = ("from slagwerk.cli import main\n"
            "sys.exit(main(['tournament', '--game', 'coins', '--agents', 'random',"
            " 'openspiel-ismcts:simulations=10', '--deals', '1', '--jobs', '1', '--quiet',"
            f" '--results', {str(tmp_path / 'run')!r}]))\n")
    done = _run("pyspiel", code, tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "openspiel-ismcts" in done.stderr and "pip install 'slagwerk[openspiel]'" in done.stderr


def test_the_pettingzoo_environments_say_what_to_install(tmp_path):
    code = ("from slagwerk.envs.encoded import MissingDependency\n"
            "try:\n    import slagwerk.envs.pettingzoo\nexcept MissingDependency as err:\n    print(err)\n")
    done = _run("pettingzoo", code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("slagwerk.envs.pettingzoo needs pettingzoo, which is not installed: "
                                   "pip install 'slagwerk[pettingzoo]'")
