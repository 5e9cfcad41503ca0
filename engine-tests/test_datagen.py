"""`make datagen` / `make data-status` (tools/data.py): the recipe resumes
after an interruption and never plays a game twice."""
import json
import os
import signal
import subprocess
import sys
import time

from conftest import ROOT, run

DATA_PY = str(ROOT / "tools" / "data.py")


def env_for(exe, data_dir):
    env = dict(os.environ)
    env.update({
        "ARCHIVIST_DATA": str(data_dir),
        "ARCHIVIST_DATAGEN_EXE": exe,
        "ARCHIVIST_DATAGEN_GAMES": "10",
        "ARCHIVIST_DATAGEN_FILES": "2",
        "ARCHIVIST_DATAGEN_SOFT_NODES": "300",
        "ARCHIVIST_DATAGEN_THREADS": "1",
        # Not the repository's data/: its kept files would be skipped.
        "ARCHIVIST_KEPT": str(data_dir / "kept"),
    })
    return env


def record_files(data_dir):
    return sorted(p for p in data_dir.glob("records/*/*.bin"))


def games_in(exe, path):
    out = run(exe, "records", "verify", str(path)).stdout
    return int(out.split("valid, ")[1].split(" games")[0])


def test_datagen_resumes_and_never_plays_a_game_twice(exe, tmp_path):
    env = env_for(exe, tmp_path)
    gen = subprocess.Popen([sys.executable, DATA_PY, "gen", "--foreground"], env=env, cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    # Interrupt as soon as the first file holds a game: polling its size
    # (not `records verify`, a process per look) keeps the interrupt ahead
    # of the recipe's end on a loaded machine.
    deadline = time.time() + 120
    while time.time() < deadline:
        files = record_files(tmp_path)
        if files and os.path.getsize(files[0]) > 0:
            break
        time.sleep(0.02)
    os.killpg(gen.pid, signal.SIGINT)
    gen.wait(timeout=60)
    assert sum(games_in(exe, f) for f in record_files(tmp_path)) < 20, "interrupted before the end"

    # The same command again finishes the recipe.
    done = subprocess.run([sys.executable, DATA_PY, "gen", "--foreground"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    files = record_files(tmp_path)
    assert [f.name.split("-")[0] for f in files] == ["random", "random"]
    for f in files:
        assert games_in(exe, f) == 10, f
        runs = json.loads(f.with_name(f.name + ".runs.json").read_text())["runs"]
        spans = sorted((r["first_index"], r["end_index"]) for r in runs)
        for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
            assert a1 <= b0, f"game indices handed out twice: {spans}"
        pgn = run(exe, "records", "dump", "--pgn", str(f)).stdout
        games = ["\n".join(l for l in g.splitlines() if not l.startswith("[Round "))
                 for g in pgn.split("[Event ")[1:]]
        assert len(games) == len(set(games)) == 10, "a game was played twice"

    # A third run plays nothing. Its `bench` of the engine runs at nice 19
    # (tools/data.py), so on a loaded machine it may wait: the second run's
    # timeout.
    again = subprocess.run([sys.executable, DATA_PY, "gen", "--foreground"], env=env, cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0
    assert [games_in(exe, f) for f in record_files(tmp_path)] == [10, 10]

    status = subprocess.run([sys.executable, DATA_PY, "status"], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert status.returncode == 0, status.stderr
    for f in files:
        assert f.name in status.stdout
        assert "10 games" in status.stdout.split(f.name)[1].split("\n")[0]


def test_kept_records_carry_their_build_and_checksum_and_are_never_played_again(exe, tmp_path):
    """`data.py keep` copies complete files into the repository's data/
    (ARCHIVIST_KEPT here), their run log gaining commit, bench and FNV-1a;
    a new machine's recipe skips what is kept, so no seed is played twice."""
    kept = tmp_path / "kept"
    (tmp_path / "machine1").mkdir()
    env = env_for(exe, tmp_path / "machine1")
    env.update({"ARCHIVIST_DATAGEN_FILES": "1", "ARCHIVIST_DATAGEN_GAMES": "4", "ARCHIVIST_KEPT": str(kept)})
    done = subprocess.run([sys.executable, DATA_PY, "gen", "--foreground"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    [made] = record_files(tmp_path / "machine1")
    out = subprocess.run([sys.executable, DATA_PY, "keep"], env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    copy = kept / made.parent.name / made.name
    assert copy.read_bytes() == made.read_bytes()
    info = json.loads(copy.with_name(made.name + ".runs.json").read_text())["kept"]
    h = 0xcbf29ce484222325
    for b in made.read_bytes():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    assert info["fnv1a64"] == f"{h:#018x}"
    assert (info["bench"], info["games"]) == (int(made.parent.name), 4)
    # Kept again: nothing new.
    again = subprocess.run([sys.executable, DATA_PY, "keep"], env=env, cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    assert "0 file(s) kept" in again.stdout, again.stdout
    # A new machine: the kept file's seed is not played again.
    env2 = dict(env, ARCHIVIST_DATA=str(tmp_path / "machine2"))
    (tmp_path / "machine2").mkdir()
    fresh = subprocess.run([sys.executable, DATA_PY, "gen", "--foreground"], env=env2, cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert record_files(tmp_path / "machine2") == []
    status = subprocess.run([sys.executable, DATA_PY, "status"], env=env2, cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert made.name in status.stdout and "kept in the repository" in status.stdout, status.stdout
