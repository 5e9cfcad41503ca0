"""Persistent hash (SFTT) over UCI and through `archivist tt`."""
from __future__ import annotations

import re

from conftest import run
from harness import Uci

FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def start(exe, *options: str, ready_timeout: float = 10) -> Uci:
    u = Uci([exe])
    u.handshake()
    u.send(*(f"setoption name {o}" for o in options))
    u.ready(ready_timeout)
    return u


def analyse(u: Uci, depth: int) -> tuple[int, str]:
    """(nodes of the final info line, bestmove) for `go depth`."""
    u.send(f"position fen {FEN}", f"go depth {depth}")
    lines, _ = u.bestmove(60)
    infos = [l for l in lines if l.startswith("info depth")]
    nodes = int(re.search(r" nodes (\d+)", infos[-1]).group(1))
    return nodes, lines[-1].split()[1]


def info_strings(u: Uci) -> list[str]:
    return [l for l in u.ready() if l.startswith("info string")]


def test_save_quit_restart_load_and_analyse_again(exe, tmp_path):
    path = tmp_path / "analysis.sftt"
    u = start(exe, f"Hash File value {path}", "Hash value 32")
    cold_nodes, cold_move = analyse(u, 13)
    u.send("setoption name Save Hash to File")
    saved = info_strings(u)
    assert any("Saved hash" in s and "entries" in s and "bytes" in s for s in saved), saved
    assert u.close() == 0

    info = run(exe, "tt", "info", str(path)).stdout
    assert f"root_pos:        {FEN}" in info
    assert "root_depth:      13" in info
    assert run(exe, "tt", "verify", str(path)).returncode == 0

    v = start(exe, f"Hash File value {path}", "Hash value 32")
    v.send("setoption name Load Hash from File")
    loaded = info_strings(v)
    assert any("Loaded hash" in s for s in loaded), loaded
    warm_nodes, warm_move = analyse(v, 13)
    assert warm_nodes * 3 < cold_nodes, (warm_nodes, cold_nodes)
    assert warm_move == cold_move
    assert v.close() == 0


def last_info(u: Uci, depth: int, *setup: str) -> tuple[str, str]:
    """(final info line, bestmove line) of `go depth` after `setup` commands."""
    u.send(*setup, f"position fen {FEN}", f"go depth {depth}")
    lines, _ = u.bestmove(60)
    return [l for l in lines if l.startswith("info depth")][-1], lines[-1]


def test_a_depth_the_table_holds_is_answered_from_it_and_a_deeper_one_resumes(exe):
    u = start(exe, "Hash value 32")
    cold, cold_best = last_info(u, 10)
    warm, warm_best = last_info(u, 10)
    # Same move, same score, the line walked from the table, no node searched.
    assert warm_best == cold_best
    assert " nodes 0 " in warm and re.search(r" pv (\S+)", warm).group(1) == cold_best.split()[1]
    assert re.search(r"score (\S+ \S+)", warm).group(1) == re.search(r"score (\S+ \S+)", cold).group(1)
    shallower, _ = last_info(u, 7)
    assert " nodes 0 " in shallower and shallower.startswith("info depth 7 ")
    # A deeper request, or one the table cannot answer (two lines), searches.
    deeper, _ = last_info(u, 11)
    assert deeper.startswith("info depth 11 ") and " nodes 0 " not in deeper
    # Deeper than the table: the search goes on at the next depth, without
    # repeating the one the table already holds.
    u.send(f"position fen {FEN}", "go depth 13")
    lines, _ = u.bestmove(60)
    depths = [int(l.split()[2]) for l in lines if l.startswith("info depth")]
    assert depths and min(depths) == 12 and max(depths) == 13, depths
    two, _ = last_info(u, 10, "setoption name MultiPV value 2")
    assert " nodes 0 " not in two
    u.close()


def test_persistent_hash_saves_at_quit_and_loads_when_set(exe, tmp_path):
    path = tmp_path / "persist.sftt"
    u = start(exe, f"Hash File value {path}", "Persistent Hash value true")
    analyse(u, 10)
    u.send("quit")
    assert u.wait_exit(10) == 0
    assert path.exists() and run(exe, "tt", "verify", str(path)).returncode == 0

    v = Uci([exe])
    v.handshake()
    v.send(f"setoption name Hash File value {path}", "setoption name Persistent Hash value true")
    assert any("Loaded hash" in s for s in info_strings(v))
    v.close()


def test_save_is_refused_while_searching(exe, tmp_path):
    path = tmp_path / "busy.sftt"
    u = start(exe, f"Hash File value {path}")
    u.send("go infinite")
    u.send("setoption name Save Hash to File")
    refused = info_strings(u)
    assert any("refused while a search is running" in s for s in refused), refused
    assert not path.exists()
    u.send("stop")
    u.bestmove(2)
    u.close()


def test_corrupt_file_is_reported_and_table_kept(exe, tmp_path):
    path = tmp_path / "good.sftt"
    u = start(exe, f"Hash File value {path}")
    nodes_cold, _ = analyse(u, 11)
    u.send("setoption name Save Hash to File")
    info_strings(u)
    data = bytearray(path.read_bytes())
    data[4] = 9  # wrong version
    bad = tmp_path / "bad.sftt"
    bad.write_bytes(bytes(data))
    u.send(f"setoption name Hash File value {bad}", "setoption name Load Hash from File")
    msgs = info_strings(u)
    assert any("failed, table unchanged" in s and "version" in s for s in msgs), msgs
    # The table still holds the first analysis: a repeat is cheap.
    nodes_again, _ = analyse(u, 11)
    assert nodes_again * 3 < nodes_cold
    u.close()
    out = run(exe, "tt", "verify", str(bad))
    assert out.returncode != 0 and "offset 4" in out.stdout


def test_never_clear_hash_keeps_table_over_ucinewgame(exe):
    u = start(exe, "Never Clear Hash value true")
    cold, _ = analyse(u, 11)
    u.send("ucinewgame", "setoption name Clear Hash")
    u.ready()
    warm, _ = analyse(u, 11)
    assert warm * 3 < cold
    u.close()


def test_save_right_after_bestmove_is_accepted(exe, tmp_path):
    path = tmp_path / "quick.sftt"
    u = start(exe, f"Hash File value {path}")
    for _ in range(5):
        u.send(f"position fen {FEN}", "go depth 6")
        u.bestmove(10)
        u.send("setoption name Save Hash to File")
        msgs = info_strings(u)
        assert any("Saved hash" in s for s in msgs), msgs
    u.close()


def test_a_killed_save_leaves_a_valid_file_and_the_next_save_sweeps_its_temporary(exe, tmp_path):
    """SIGKILL mid-save: the old file stays valid; the killed writer's
    `.NAME.tmp-PID` is removed by the next save into that directory."""
    import os
    import signal
    import time

    path = tmp_path / "kill.sftt"
    u = start(exe, f"Hash File value {path}", "Hash value 16")
    analyse(u, 8)
    u.send("setoption name Save Hash to File")
    assert any("Saved hash" in s for s in info_strings(u))
    u.close()
    old = path.read_bytes()

    # A big table takes long enough to scan that the temporary file is seen.
    stale = None
    for hash_mb in (2048, 4096, 8192):
        # Up to 8 GB are allocated and cleared before readyok: over 10 s on
        # a loaded 2-core machine.
        k = start(exe, f"Hash File value {path}", f"Hash value {hash_mb}", ready_timeout=120)
        analyse(k, 6)
        tmp = tmp_path / f".kill.sftt.tmp-{k.proc.pid}"
        k.send("setoption name Save Hash to File")
        deadline = time.monotonic() + 30
        while not tmp.exists() and time.monotonic() < deadline and k.proc.poll() is None:
            time.sleep(0.0005)
        if tmp.exists():
            os.kill(k.proc.pid, signal.SIGKILL)
            k.proc.wait(10)
            if tmp.exists():
                stale = tmp
                break
        k.proc.kill()
        k.proc.wait(10)
    assert stale is not None, "never caught a save in progress"
    assert path.read_bytes() == old, "the killed save damaged the old file"
    assert run(exe, "tt", "verify", str(path)).returncode == 0

    v = start(exe, f"Hash File value {path}", "Hash value 16")
    analyse(v, 8)
    v.send("setoption name Save Hash to File")
    assert any("Saved hash" in s for s in info_strings(v))
    v.close()
    assert not stale.exists(), "the dead writer's temporary file was left behind"
    assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []
    assert run(exe, "tt", "verify", str(path)).returncode == 0


def test_search_state_is_saved_beside_the_table_and_a_damaged_one_is_ignored(exe, tmp_path):
    path = tmp_path / "state.sftt"
    u = start(exe, f"Hash File value {path}")
    analyse(u, 9)
    u.send("setoption name Save Hash to File")
    saved = info_strings(u)
    assert any("search state" in s and "bytes" in s for s in saved), saved
    assert u.close() == 0
    hist = tmp_path / "state.sftt.hist"
    assert hist.read_bytes()[:4] == b"ARSS"

    v = start(exe, f"Hash File value {path}")
    v.send("setoption name Load Hash from File")
    assert any("search state restored" in s for s in info_strings(v))
    assert v.close() == 0

    data = bytearray(hist.read_bytes())
    data[100] ^= 0xFF
    hist.write_bytes(bytes(data))
    w = start(exe, f"Hash File value {path}")
    w.send("setoption name Load Hash from File")
    loaded = info_strings(w)
    assert any("Loaded hash" in s and "search state not restored" in s and "checksum" in s for s in loaded), loaded
    nodes, move = analyse(w, 10)  # deeper than the table holds: a real search
    assert nodes > 0 and len(move) >= 4
    assert w.close() == 0


def per_depth(u: Uci, fen: str, depth: int) -> dict[int, tuple[int, str, str]]:
    """Per completed depth of one `go depth`: (cumulative nodes, score, first move)."""
    u.send(f"position fen {fen}", f"go depth {depth}")
    lines, _ = u.bestmove(120)
    out = {}
    for l in lines:
        m = re.match(r"info depth (\d+) .*?score (\S+ \S+)(?! lowerbound| upperbound) .*?nodes (\d+) .* pv (\S+)", l)
        if m:
            out[int(m.group(1))] = (int(m.group(3)), m.group(2), m.group(4))
    return out


def test_a_resumed_search_goes_on_node_for_node_as_the_saved_one_would_have(exe, tmp_path):
    """The table, histories, killers, counter moves and root order saved at
    depth D make a search loaded from them the saved search's own next
    iterations: at D + 1 and D + 2 it spends exactly the nodes the
    uninterrupted search spent past D, with the same score and move. (Before
    the killers, counter moves and root order were saved, one of these
    positions resumed to a different move and cost more than a cold search.)"""
    fens = [
        FEN,
        "r1bqk2r/2p1bppp/p1np1n2/1p2p3/4P3/1B3N2/PPPP1PPP/RNBQR1K1 w kq - 0 8",
        "r2q1rk1/pb1p2pp/1pn1p3/2p2pn1/2PP4/P2BPP2/1P1N2PP/R1BQ1RK1 w - - 2 13",
    ]
    d = 10
    for i, fen in enumerate(fens):
        path = tmp_path / f"r{i}.sftt"
        u = start(exe, "Hash value 32", f"Hash File value {path}")
        saved = per_depth(u, fen, d)
        u.send("setoption name Save Hash to File")
        u.ready()
        assert u.close() == 0
        c = start(exe, "Hash value 32")
        cold = per_depth(c, fen, d + 2)
        assert c.close() == 0
        assert cold[d] == saved[d]
        w = start(exe, "Hash value 32", f"Hash File value {path}")
        w.send("setoption name Load Hash from File")
        w.ready()
        warm = per_depth(w, fen, d + 2)
        assert w.close() == 0
        assert sorted(warm) == [d + 1, d + 2], warm
        for k in (d + 1, d + 2):
            assert warm[k] == (cold[k][0] - cold[d][0], cold[k][1], cold[k][2]), (fen, k, warm, cold)
