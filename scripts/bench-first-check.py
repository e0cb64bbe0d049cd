#!/usr/bin/env python3
"""The first `hone check` of a library against skills-ref-rs, side by side.

    scripts/bench-first-check.sh [ROUNDS] [LIBRARY]    (sets up the peer, then runs this)

Runs, interleaved, ROUNDS times each (default 15) and prints the median wall time, CPU time and peak RSS
of the whole process:
  - the peer: skills-ref-rs 0.3.3 (PyPI; a Rust core with the spec's checks) finding every folder with a
    SKILL.md under LIBRARY (os.walk) and validating each, and the same given the folders already found
    (its validation alone);
  - `hone check --target all --no-cache LIBRARY`: Hone's first run, every rule, no cache of any kind;
  - `hone check --target all LIBRARY`: a second run, answers from the user's cache.
Each Hone run is also given as a ratio to the peer's whole run of the same round (the median ratio,
with a bootstrap 95% interval).
With PAUSE=SECONDS in the environment, the machine idles that long before each command. A user's first
check seldom follows another command by a fraction of a second, and on a virtual machine that hands idle
memory back to its host (free page reporting, after about two seconds) a command run right after another
finds its memory still backed; runs back to back flatter a process that uses much memory.
Timing assertions belong nowhere else: this prints figures, it passes or fails nothing.
"""

import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

# One run of a command: wall ms, CPU ms (user and system), peak RSS in MiB.
Run = tuple[float, float, float]


def peer(library: str, listed: str | None) -> None:
    """The peer's run: validate every skill folder (found here, or read from `listed`)."""
    from skills_ref_rs import validate

    if listed:
        folders = Path(listed).read_text().splitlines()
    else:
        folders = [d for d, _, files in os.walk(library) if "SKILL.md" in files]
    failing = sum(1 for folder in folders if validate(Path(folder)))
    print(f"{len(folders)} skills, {failing} failing")


def measure(
    rounds: int, commands: dict[str, list[str]], pause: float, baseline: str, compared: list[str]
) -> None:
    runs: dict[str, list[Run]] = {label: [] for label in commands}
    for _ in range(rounds):
        for label, command in commands.items():
            time.sleep(pause)
            # RUSAGE_CHILDREN's peak RSS is the largest child so far, so each
            # run's peak comes from wait4 instead.
            started = time.perf_counter()
            child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, _, usage = os.wait4(child.pid, 0)
            wall = (time.perf_counter() - started) * 1000
            cpu = (usage.ru_utime + usage.ru_stime) * 1000
            runs[label].append((wall, cpu, usage.ru_maxrss / 1024))
    paused = f", {pause:g} s idle before each" if pause else ""
    print(f"{'':32} {'wall ms':>14} {'cpu ms':>8} {'peak MiB':>9}   ({rounds} interleaved rounds{paused}, medians; wall p25-p75)")
    for label, rows in runs.items():
        walls = sorted(r[0] for r in rows)
        quartile = lambda q: walls[int(q * (len(walls) - 1))]
        print(
            f"{label:32} {statistics.median(walls):6.1f} {quartile(.25):3.0f}-{quartile(.75):<3.0f}"
            f" {statistics.median(r[1] for r in rows):8.1f} {statistics.median(r[2] for r in rows):9.1f}"
        )
    for label in compared:
        low, middle, high = paired_ratio(runs[label], runs[baseline])
        print(f"{label} / {baseline}, wall, paired by round: {middle:.2f}x (95% CI {low:.2f}-{high:.2f})")


def paired_ratio(rows: list[Run], baseline: list[Run]) -> tuple[float, float, float]:
    """The median of the per-round ratios of wall times, with a bootstrap 95% interval.

    A round's two runs share the machine's state of that moment, so their ratio varies less than
    either time does from one hour to the next; the interval says whether "no slower" is settled.
    """
    draws = 2000
    ratios = [run[0] / base[0] for run, base in zip(rows, baseline)]
    pick = random.Random(0)
    medians = sorted(statistics.median(pick.choices(ratios, k=len(ratios))) for _ in range(draws))
    return medians[int(0.025 * draws)], statistics.median(ratios), medians[int(0.975 * draws) - 1]


def main() -> None:
    if sys.argv[1:2] == ["--peer"]:
        peer(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
        return
    peer_python, hone, rounds, library = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    listed = Path(os.environ.get("TMPDIR", "/tmp")) / "hone-bench-skill-folders.txt"
    listed.write_text("\n".join(d for d, _, files in os.walk(library) if "SKILL.md" in files) + "\n")
    this = str(Path(__file__).resolve())
    peer_whole = "skills-ref-rs (finds, validates)"
    first, second = "hone check, first run", "hone check, second run"
    measure(
        rounds,
        {
            peer_whole: [peer_python, this, "--peer", library],
            "skills-ref-rs (validates)": [peer_python, this, "--peer", library, str(listed)],
            first: [hone, "check", "--target", "all", "--no-cache", library],
            second: [hone, "check", "--target", "all", library],
        },
        float(os.environ.get("PAUSE", "0")),
        baseline=peer_whole,
        compared=[first, second],
    )


if __name__ == "__main__":
    main()
