#!/usr/bin/env python3
"""Training data that outlives the work tree: `make data-status`, `make datagen`.

Records live in one directory outside the checkout, ARCHIVIST_DATA (default
~/archivist-data), so that the next session on the same machine still has
them:

    bin/archivist-<commit>        release binaries built from committed revisions
    bin/archivist-<commit>.json   {"commit", "bench"} of each
    records/<bench>/<part>-<seed>.bin (+ .runs.json, .log)
                                  self-play records of the engine whose `bench` is <bench>
    records/<bench>/genfens-<bench>.epd
                                  part B's openings for that engine
    datagen.pid, datagen.log      the background generation, while it runs

The recipe (nets/README.md, "Data recipe") for the engine of bench B:
files of FILE_GAMES games, seed B*100+k for k = 1, 2, ... up to FILES; file
k is part B (openings from the project's book, `genfens`) when k % 3 == 0,
part A (start position and 8 random plies) otherwise. Every file is filled
by `selfplay --fill FILE_GAMES`, so an interrupted file resumes where it
stopped, and its seed's game numbering continues past every game the earlier
runs handed out: no game is played twice. A file holds the games of one
engine build; when the bench changes, new files with new seeds start, and
the older files stay usable.

`gen` builds (or reuses) the binary of HEAD from `git archive` -- never from
the work tree -- and then plays the recipe in the background at nice 19.
`status` lists every file with its games, positions, the builds that
played it (from its run log) and which committed checkpoint
(nets/*.ckpt.json) read it, and what the recipe still wants. `stop` ends
the background job (the games in progress are dropped). `keep` copies the
complete files into the repository's data/<bench>/ (ARCHIVIST_KEPT in
tests) to be committed, since a machine's records are lost when the
machines are replaced: each with its run log, whose .runs.json gains
"kept" (commits, bench, games, positions, bytes, FNV-1a). `status` lists
the kept files too, and `gen` skips a kept file's seed, so a new machine
never plays those games again.
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.abspath(os.path.expanduser(os.environ.get("ARCHIVIST_DATA", "~/archivist-data")))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")
# Records kept in the repository (`keep`): data/<bench>/<file> with its
# .runs.json (plus what `keep` adds: commit, bench, FNV-1a) and run log.
KEPT = os.path.abspath(os.environ.get("ARCHIVIST_KEPT", os.path.join(ROOT, "data")))

# The recipe. The environment may shrink it for tests (never for real data:
# the files' names do not say the settings, their .runs.json does).
FILE_GAMES = int(os.environ.get("ARCHIVIST_DATAGEN_GAMES", 2000))
FILES = int(os.environ.get("ARCHIVIST_DATAGEN_FILES", 99))
SETTINGS = ["--soft-nodes", os.environ.get("ARCHIVIST_DATAGEN_SOFT_NODES", "5000"), "--value-only"]
THREADS = int(os.environ.get("ARCHIVIST_DATAGEN_THREADS", os.cpu_count() or 1))
GENFENS_COUNT = 20000


# `make datagen`'s binaries are named archivist-<commit, 12 hex digits>
# (binary_for); a run's command starts with its binary. The same rule as
# build_in_command in src/cli/train_ledger.rs.
BUILD_NAME = re.compile(r"archivist-([0-9a-f]{12})")


def build_in_command(command):
    """The 12 hex digits of the command's program name, or None."""
    words = str(command).split()
    m = BUILD_NAME.fullmatch(os.path.basename(words[0])) if words else None
    return m.group(1) if m else None


def seed_of(bench, k):
    return bench * 100 + k


def file_name(bench, k):
    part = "book" if k % 3 == 0 else "random"
    return f"{part}-{seed_of(bench, k)}.bin"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def head_commit():
    return sh(["git", "-C", ROOT, "rev-parse", "HEAD"]).strip()


def bench_of(exe):
    out = sh(["nice", "-n", "19", exe, "bench"])
    m = re.search(r"^(\d+) nodes \d+ nps", out, re.M)
    if not m:
        raise SystemExit(f"cannot read the bench count of {exe}:\n{out}")
    return int(m.group(1))


def binary_for(commit, log):
    """The release binary of `commit`, built from `git archive` once.
    ARCHIVIST_DATAGEN_EXE names a ready binary instead (tests)."""
    given = os.environ.get("ARCHIVIST_DATAGEN_EXE")
    if given:
        return given, bench_of(given)
    exe = os.path.join(DATA, "bin", f"archivist-{commit[:12]}")
    meta = exe + ".json"
    if os.path.exists(exe) and os.path.exists(meta):
        with open(meta) as f:
            return exe, json.load(f)["bench"]
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    src = os.path.join(DATA, "build", "src")
    subprocess.run(["rm", "-rf", src], check=True)
    os.makedirs(src)
    log(f"building {commit[:12]} from git archive in {src}")
    archive = subprocess.Popen(["git", "-C", ROOT, "archive", commit], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", src], stdin=archive.stdout, check=True)
    archive.wait()
    env = dict(os.environ)
    env["RUSTFLAGS"] = (env.get("RUSTFLAGS", "") + " -C target-cpu=x86-64-v3").strip()
    subprocess.run(
        ["nice", "-n", "19", "cargo", "build", "--release", "--quiet", "--manifest-path",
         os.path.join(src, "Cargo.toml"), "--target-dir", os.path.join(DATA, "build", "target")],
        check=True, env=env)
    tmp = exe + ".tmp"
    subprocess.run(["cp", os.path.join(DATA, "build", "target", "release", "archivist"), tmp], check=True)
    bench = bench_of(tmp)
    os.rename(tmp, exe)
    with open(meta, "w") as f:
        json.dump({"commit": commit, "bench": bench}, f)
        f.write("\n")
    log(f"built {exe}: bench {bench}")
    return exe, bench


def verify(exe, path):
    """(games, positions) of a record file, by `records verify`."""
    out = subprocess.run([exe, "records", "verify", path], text=True, capture_output=True)
    m = re.search(r"valid, (\d+) games, (\d+) positions", out.stdout)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2))


def any_binary():
    for cand in sorted(glob.glob(os.path.join(DATA, "bin", "archivist-*")), key=os.path.getmtime, reverse=True):
        if not cand.endswith((".json", ".tmp")) and os.access(cand, os.X_OK):
            return cand
    for cand in [os.path.join(ROOT, "target", "release", "archivist"), os.path.join(ROOT, "archivist")]:
        if os.access(cand, os.X_OK):
            return cand
    return None


def running_pid():
    try:
        with open(os.path.join(DATA, "datagen.pid")) as f:
            pid = int(f.read().strip())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def generate(commit):
    """The background job: build, then fill the recipe's files one by one."""
    logf = open(os.path.join(DATA, "datagen.log"), "a", buffering=1)

    def log(msg):
        logf.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {msg}\n")

    stop = []
    # An interrupt reaches the whole process group: selfplay finishes its
    # whole games and exits; this loop waits for it, then stops too.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _frame: stop.append(signum))
    exe, bench = binary_for(commit, log)
    out_dir = os.path.join(DATA, "records", str(bench))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "build.json"), "w") as f:
        json.dump({"commit": commit, "bench": bench, "binary": exe}, f)
        f.write("\n")
    genfens = os.path.join(out_dir, f"genfens-{bench}.epd")
    for k in range(1, FILES + 1):
        path = os.path.join(out_dir, file_name(bench, k))
        if os.path.exists(os.path.join(KEPT, str(bench), file_name(bench, k))):
            # Kept in the repository (complete): its seed's games exist.
            continue
        cmd = [exe, "selfplay", "--out", path, "--seed", str(seed_of(bench, k)), "--fill", str(FILE_GAMES),
               *SETTINGS, "--threads", str(THREADS)]
        if k % 3 == 0:
            if not os.path.exists(genfens):
                log(f"making {genfens}")
                out = sh(["nice", "-n", "19", exe,
                          f"genfens {GENFENS_COUNT} seed {bench} book {os.path.join(ROOT, 'books', 'default.yacb')}",
                          "quit"])
                lines = [l[len("info string genfens "):] for l in out.splitlines()
                         if l.startswith("info string genfens ")]
                with open(genfens + ".tmp", "w") as f:
                    f.write("\n".join(lines) + "\n")
                os.rename(genfens + ".tmp", genfens)
            cmd += ["--openings", genfens, "--random-plies", "2"]
        log("running " + " ".join(cmd))
        with open(path[:-4] + ".log", "a") as out:
            rc = subprocess.run(["nice", "-n", "19", *cmd], stdout=out, stderr=subprocess.STDOUT).returncode
        if stop:
            log(f"interrupted (signal {stop[0]}); `make datagen` resumes")
            return 130
        if rc != 0:
            log(f"selfplay exited with {rc}; stopping")
            return rc
    log("the recipe is complete for this build")
    return 0


def cmd_gen(args):
    os.makedirs(DATA, exist_ok=True)
    pid = running_pid()
    if pid:
        print(f"datagen is already running (pid {pid}); `make data-status` shows its progress")
        return 0
    os.makedirs(DATA, exist_ok=True)
    commit = head_commit()
    dirty = sh(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"]).strip()
    if dirty:
        print(f"note: the work tree has uncommitted changes; datagen plays HEAD {commit[:12]} as committed")
    if args.foreground:
        return generate(commit)
    child = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "gen", "--foreground", "--commit", commit],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(DATA, "datagen.log"), "a"),
        start_new_session=True, cwd=DATA)
    with open(os.path.join(DATA, "datagen.pid"), "w") as f:
        f.write(f"{child.pid}\n")
    print(f"datagen started in the background (pid {child.pid}) for HEAD {commit[:12]}: "
          f"log {os.path.join(DATA, 'datagen.log')}, records under {os.path.join(DATA, 'records')}; "
          f"`make datagen-stop` ends it")
    return 0


def cmd_stop(_args):
    pid = running_pid()
    if not pid:
        print("datagen is not running")
        return 0
    os.killpg(pid, signal.SIGINT)
    print(f"stopping datagen (pid {pid}): selfplay writes its whole games and exits")
    return 0


def ledgers():
    """{(file name, fnv1a64): [checkpoint leg, ...]} from every committed checkpoint ledger."""
    read = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "nets", "*.ckpt.json"))):
        with open(path) as f:
            doc = json.load(f)
        for leg in doc.get("legs", []):
            for fi in leg.get("files", []):
                read.setdefault((fi.get("name"), fi.get("fnv1a64")), {}).setdefault(
                    os.path.basename(path)[:-len(".ckpt.json")], []).append(leg.get("leg"))
    # "gen0-h128.nnue legs 1-20": one entry per checkpoint, its legs as a range.
    return {key: [f"{ck} leg{'s' if len(legs) > 1 else ''} {min(legs)}" + (f"-{max(legs)}" if len(legs) > 1 else "")
                  for ck, legs in cks.items()]
            for key, cks in read.items()}


def fnv1a64(path):
    h = 0xcbf29ce484222325
    with open(path, "rb") as f:
        data = f.read()
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:#018x}"


def cmd_status(_args):
    exe = any_binary()
    read = ledgers()
    print(f"data directory: {DATA} (ARCHIVIST_DATA)")
    pid = running_pid()
    print(f"datagen: {'running, pid %d' % pid if pid else 'not running'}")
    dirs = [(SHARED, "shared (read-only)")] if os.path.isdir(SHARED) else []
    dirs += [(d, f"kept in the repository (bench {os.path.basename(d)})")
             for d in sorted(glob.glob(os.path.join(KEPT, "*"))) if os.path.isdir(d)]
    dirs += [(d, None) for d in sorted(glob.glob(os.path.join(DATA, "records", "*")))]
    total_games = total_positions = 0
    unread = []
    head_bench = None
    try:
        meta = os.path.join(DATA, "bin", f"archivist-{head_commit()[:12]}.json")
        with open(meta) as f:
            head_bench = json.load(f)["bench"]
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError):
        pass
    have_head = 0
    for d, label in dirs:
        build = {}
        try:
            with open(os.path.join(d, "build.json")) as f:
                build = json.load(f)
        except OSError:
            pass
        # build.json names the newest build that wrote here; each file's own
        # builds come from its run log (the binary's name carries the commit).
        name = label or (f"bench {build.get('bench', os.path.basename(d))}, "
                         f"newest build {build.get('commit', '?')[:12]}")
        print(f"\n{d}: {name}")
        for path in sorted(glob.glob(os.path.join(d, "*.bin"))):
            counted = verify(exe, path) if exe else None
            games, positions = counted if counted else (None, None)
            runs = []
            try:
                with open(path + ".runs.json") as f:
                    runs = json.load(f).get("runs", [])
            except (OSError, ValueError):
                pass
            seeds = sorted({r.get("seed") for r in runs if r.get("seed") is not None})
            builds = []
            for r in runs:
                build = build_in_command(r.get("command", ""))
                if build and build[:7] not in builds:
                    builds.append(build[:7])
            # A run left "running" by a killed process does not make a
            # file that already has all its games look unfinished.
            live = (any(r.get("status") == "running" for r in runs) and pid is not None
                    and not (games is not None and games >= FILE_GAMES))
            base = os.path.basename(path)
            who = read.get((base, fnv1a64(path)), []) if any(n == base for n, _ in read) else []
            state = ("being written" if live else
                     "complete" if games is not None and (games >= FILE_GAMES or label) else "partial")
            line = (f"  {os.path.basename(path):28} {games if games is not None else '?':>7} games "
                    f"{positions if positions is not None else '?':>9} positions  seed {','.join(map(str, seeds)) or '?'}"
                    f"  {state}; played by {', '.join(builds) or 'unknown builds'}; read by: {', '.join(who) if who else 'no checkpoint'}")
            print(line)
            if games:
                total_games += games
                total_positions += positions
                if str(head_bench) == os.path.basename(d):
                    have_head += positions
                if not who and state == "complete":
                    unread.append(path)
    print(f"\nin all: {total_games} games, {total_positions} positions")
    if head_bench is not None:
        want = FILE_GAMES * FILES * 140
        print(f"recipe for HEAD (bench {head_bench}): {have_head} of about {want} positions "
              f"({FILES} files of {FILE_GAMES} games); `make datagen` plays the rest")
    else:
        print("recipe for HEAD: no binary built yet; `make datagen` builds it and starts the recipe")
    if unread:
        print("\ncomplete files no committed checkpoint has read (the next leg's --data):")
        for p in unread:
            print(f"  {p}")
    return 0


def cmd_keep(_args):
    """Copies every complete record file of ARCHIVIST_DATA not yet kept
    into data/<bench>/ with its run log, its .runs.json gaining a "kept"
    object (the commits that played it, bench, games, positions, FNV-1a).
    A file kept before whose bytes differ now is reported, not copied
    again (a file grown and committed twice is stored twice)."""
    exe = any_binary()
    if not exe:
        print("no binary under ARCHIVIST_DATA/bin to count games with: run `make datagen` first", file=sys.stderr)
        return 1
    pid = running_pid()
    kept = 0
    for d in sorted(glob.glob(os.path.join(DATA, "records", "*"))):
        bench = os.path.basename(d)
        for path in sorted(glob.glob(os.path.join(d, "*.bin"))):
            base = os.path.basename(path)
            counted = verify(exe, path)
            try:
                with open(path + ".runs.json") as f:
                    runs = json.load(f)
            except (OSError, ValueError):
                print(f"  {base}: no readable .runs.json, left")
                continue
            # Being written: its last run is still running (an earlier run
            # left "running" by a machine that stopped was resumed since).
            live = pid is not None and runs.get("runs", [{}])[-1].get("status") == "running"
            if not counted or counted[0] < FILE_GAMES or live:
                continue
            target = os.path.join(KEPT, bench, base)
            digest = fnv1a64(path)
            if os.path.exists(target):
                if fnv1a64(target) != digest:
                    print(f"  {base}: kept before with other bytes; not copied again")
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            commits = []
            for r in runs.get("runs", []):
                c = build_in_command(r.get("command", ""))
                if c and c not in commits:
                    commits.append(c)
            runs["kept"] = {"commits": commits, "bench": int(bench), "games": counted[0],
                            "positions": counted[1], "bytes": os.path.getsize(path), "fnv1a64": digest}
            for src, dst in ((path, target), (path[:-4] + ".log", target[:-4] + ".log")):
                if os.path.exists(src):
                    shutil.copyfile(src, dst + ".tmp")
                    os.replace(dst + ".tmp", dst)
            with open(target + ".runs.json.tmp", "w") as f:
                json.dump(runs, f, indent=2)
                f.write("\n")
            os.replace(target + ".runs.json.tmp", target + ".runs.json")
            kept += 1
            print(f"  kept {os.path.relpath(target, ROOT)}: {counted[0]} games, {counted[1]} positions, {digest}")
    print(f"{kept} file(s) kept in {os.path.relpath(KEPT, ROOT)}/; commit them (git add data/)")
    return 0


def cmd_rows(args):
    """Markdown rows for nets/README.md's checkpoint table, one per leg."""
    with open(args.ledger) as f:
        doc = json.load(f)
    name = os.path.basename(args.ledger)[:-len(".ckpt.json")]
    for leg in doc.get("legs", []):
        files = leg.get("files", [])
        def describe(fi):
            eng = fi.get("engine") or {}
            # Older ledgers name the folder's newest build ("commit").
            builds = eng.get("builds") or ([eng["commit"]] if eng.get("commit") else [])
            engine = (f"{', '.join(str(b)[:7] for b in builds) or '?'}, bench {eng.get('bench', '?')}, "
                      if eng else "")
            seeds = ",".join(map(str, fi.get("seeds") or [])) or "?"
            return f"{fi.get('name')} ({engine}seed {seeds}, {fi.get('games')} games, {fi.get('positions')} positions)"
        data = "; ".join(describe(fi) for fi in files)
        when = time.strftime("%Y-%m-%d", time.gmtime(leg.get("unix_time", 0)))
        val = leg.get("validation_loss")
        print(f"| `{name}` | {leg.get('leg')} | {leg.get('trained_after'):,} ({leg.get('planned'):,}) | {data} | "
              f"{'%.6f' % val if val is not None else '—'} (train {leg.get('loss'):.6f}) | {when} |")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen", help="start (or resume) the recipe in the background")
    g.add_argument("--foreground", action="store_true", help=argparse.SUPPRESS)
    g.add_argument("--commit", help=argparse.SUPPRESS)
    sub.add_parser("status", help="what is there, and what the recipe still wants")
    sub.add_parser("stop", help="stop the background generation")
    sub.add_parser("keep", help="copy complete record files into data/ (the repository) to be committed")
    r = sub.add_parser("rows", help="nets/README.md table rows from a checkpoint ledger")
    r.add_argument("ledger")
    b = sub.add_parser("binary", help="the release binary of a commit (built from git archive once); prints its path")
    b.add_argument("commit")
    args = ap.parse_args()
    if args.cmd == "binary":
        full = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", args.commit + "^{commit}"],
                              capture_output=True, text=True)
        if full.returncode != 0:
            print(f"data.py binary: no commit {args.commit}", file=sys.stderr)
            return 2
        exe, _ = binary_for(full.stdout.strip(), lambda msg: print(msg, file=sys.stderr))
        print(exe)
        return 0
    if args.cmd == "gen":
        if args.foreground:
            return generate(args.commit or head_commit())
        return cmd_gen(args)
    if args.cmd == "stop":
        return cmd_stop(args)
    if args.cmd == "keep":
        return cmd_keep(args)
    if args.cmd == "rows":
        return cmd_rows(args)
    return cmd_status(args)


if __name__ == "__main__":
    sys.exit(main())
