"""What `--help` says is true, and `--config` is honoured where it is
offered and refused everywhere else."""
import json
import re

from conftest import ROOT, run

SUBCOMMANDS = ["bench", "perft", "book", "tt", "selfplay", "train", "tune", "records", "show", "tb", "serve", "options",
               "explorer"]


def commands(help_text):
    """The subcommand names a `--help` lists."""
    block = help_text.split("Commands:")[1].split("\n\n")[0]
    return [line.split()[0] for line in block.splitlines() if line.strip() and line.split()[0] != "help"]


def test_book_help_names_every_format_and_what_the_subcommands_do(exe):
    text = run(exe, "book", "--help").stdout
    about = text.split("\n\n")[0]
    for word in ("Polyglot", "YACB", "ABK", "SBOB", "JSON", ".exp",
                 "build", "analyse", "probe", "inspect", "verify", "merge", "edit", "convert", "export", "import"):
        assert word in about, (word, about)
    assert set(commands(text)) >= {"build", "export", "analyse", "from-tt", "probe", "info", "verify", "dump", "merge",
                                   "edit", "convert", "import-exp"}


def test_book_probe_help_names_abk(exe):
    text = run(exe, "book", "probe", "--help").stdout
    book_arg = text.split("Arguments:")[1].split("Options:")[0]
    assert "ABK" in book_arg and "Polyglot" in book_arg and "YACB" in book_arg, book_arg


def test_records_help_says_it_imports_exports_and_transforms(exe):
    about = run(exe, "records", "--help").stdout.split("\n\n")[0]
    assert not about.startswith("Inspect")
    for verb in ("import", "export", "filter", "dedup", "shuffle", "interleave", "split", "verify"):
        assert verb in about, (verb, about)


def test_options_lists_every_uci_option_with_what_it_does(exe):
    listed = run(exe, "options").stdout.splitlines()
    uci = [line for line in run(exe, stdin="uci\nquit\n").stdout.splitlines() if line.startswith("option name")]
    assert listed[0::2] == uci
    assert all(line.startswith("    ") and len(line.strip()) > 10 for line in listed[1::2])
    book_file = listed[listed.index(next(line for line in uci if line.startswith("option name BookFile "))) + 1]
    assert "Polyglot" in book_file and "ABK" in book_file and "YACB" in book_file, book_file


def test_only_the_engine_and_selfplay_take_config(exe, tmp_path):
    missing = tmp_path / "missing.toml"
    top = run(exe, "--help").stdout
    assert set(commands(top)) == set(SUBCOMMANDS)
    for sub in SUBCOMMANDS:
        text = run(exe, sub, "--help").stdout
        offered = "--config" in text
        assert offered == (sub == "selfplay"), sub
        if not offered:
            r = run(exe, sub, "--config", str(missing))
            assert r.returncode == 2 and "unexpected argument '--config'" in r.stderr, (sub, r.stderr)
    # The engine reads it (an unreadable file is an error naming it) ...
    r = run(exe, "--config", str(missing), stdin="quit\n")
    assert r.returncode != 0 and str(missing) in r.stderr
    r = run(exe, "--config", str(ROOT / "configs" / "engine.toml"), stdin="isready\nquit\n")
    assert r.returncode == 0 and "readyok" in r.stdout
    # ... and so does selfplay, for its preset.
    r = run(exe, "selfplay", "--config", str(missing), "--games", "1", "--nodes", "100", "--out", str(tmp_path / "s.bin"))
    assert r.returncode != 0 and str(missing) in r.stderr
    preset = tmp_path / "p.toml"
    preset.write_text((ROOT / "configs" / "selfplay.toml").read_text())
    r = run(exe, "selfplay", "--config", str(preset), "--games", "2", "--nodes", "200", "--threads", "1",
            "--out", str(tmp_path / "p.bin"), timeout=300)
    assert r.returncode == 0, r.stderr
    assert re.search(r"\b2 games\b", r.stdout + r.stderr), r.stdout + r.stderr


README = (ROOT / "README.md").read_text()


def readme_flags(synopsis):
    """The `--flags` of the README's subcommand table row whose command cell starts `synopsis`."""
    row = next(line for line in README.splitlines() if line.startswith(f"| `{synopsis}"))
    return set(re.findall(r"--[a-z][a-z0-9-]*", row.split("` |")[0]))


def help_flags(text):
    """The `--flags` a `--help` lists under Options, but --help."""
    options = text.split("Options:")[1]
    return set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)", options, re.M)) - {"--help"}


def test_book_convert_synopsis_and_format_rules_are_the_programs(exe, tmp_path):
    from test_book_import import golden_abk
    text = run(exe, "book", "convert", "--help").stdout
    assert readme_flags("archivist book convert ") == help_flags(text) == {"--to", "--root"}
    directions = text.split("What each direction keeps and drops:")[1].split("The input format is told")[0]
    for source in ("polyglot ->", "sbob|json ->", "yacb ->", "|json -> yacb", "abk ->", "old json ->"):
        assert source in directions, source
    rules = " ".join(text.split("The input format is told by content")[1].split())
    for rule in ("YACB or SBOB magic", "ABK by Arena's signature and an ABK size", "or by an .abk name",
                 "JSON text starting '{'", "old JSON text starting '[' then '{' or ']'", "anything else is Polyglot"):
        assert rule in rules, rule
    # Each rule as the program applies it: books of every format under a name that tells nothing.
    books = {"yacb": (ROOT / "books" / "default.yacb").read_bytes(), "abk": golden_abk(),
             "legacy-json": json.dumps([{"name": "Aggressive Rook", "moves": {
                 "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1": [{"from": "27", "to": "26"}]}}]).encode()}
    for fmt, ext in (("sbob", "sbob"), ("json", "json"), ("polyglot", "bin")):
        out = tmp_path / f"made.{ext}"
        assert run(exe, "book", "convert", str(ROOT / "books" / "default.yacb"), str(out)).returncode == 0
        books[fmt] = out.read_bytes()
    titles = {"yacb": "YACB", "sbob": "SBOB", "json": "JSON", "polyglot": "Polyglot", "abk": "ABK",
              "legacy-json": "old JSON"}
    for fmt, data in books.items():
        book = tmp_path / f"{fmt}.dat"
        book.write_bytes(data)
        r = run(exe, "book", "verify", str(book))
        assert r.returncode == 0 and f"valid {titles[fmt]} " in r.stdout, (fmt, r.stdout)
    # An .abk name is ABK whatever the content: Polyglot bytes fail as ABK (its 25,200-byte header).
    named = tmp_path / "polyglot.abk"
    named.write_bytes(books["polyglot"])
    r = run(exe, "book", "convert", str(named), str(tmp_path / "x.json"))
    assert r.returncode != 0 and "25200 bytes needed" in r.stderr, r.stderr


def test_serve_synopsis_and_help_are_the_parsers_and_call_it_the_local_service(exe):
    text = run(exe, "serve", "--help").stdout
    flags = help_flags(text)
    assert {"--book", "--syzygy", "--hash-file", "--lichess", "--masters", "--web", "--listen"} <= flags
    assert readme_flags("archivist serve ") == flags
    # "explorer" is the opening explorer only, never `serve` itself.
    serve_line = next(line for line in run(exe, "--help").stdout.splitlines() if line.strip().startswith("serve "))
    for about in (text.split("\n\n")[0], serve_line):
        assert "local service" in about, about
        assert all(m.group(0) == "opening explorer" for m in re.finditer(r"(\w+ )?explorer", about)), about


def test_tb_help_names_every_tb_subcommand(exe):
    text = run(exe, "tb", "--help").stdout
    about = text.split("\n\n")[0]
    assert set(commands(text)) == {"probe", "line", "info"}
    for sub in commands(text):
        assert sub in about, (sub, about)


def test_book_build_help_says_what_the_parser_does(exe, tmp_path):
    summary = next(line for line in run(exe, "book", "--help").stdout.splitlines() if line.strip().startswith("build "))
    assert "PGN" in summary and "explorer index" in summary, summary
    text = run(exe, "book", "build", "--help").stdout
    assert "byte-identical to `polyglot make-book`" in text and "--from-explorer" in text
    # Every "With --X: ..." option is refused without --X.
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[Event "x"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n')
    values = {"--ratings": "1000", "--since": "2020-01", "--until": "2020-01", "--color": "white"}
    conditional = re.findall(r"^\s+(--[a-z0-9-]+)(?: <\w+>)?\.*\n\s+With (--[a-z0-9-]+)", text, re.M)
    assert len(conditional) >= 6, conditional
    for option, needs in conditional:
        args = [option] + ([values[option]] if option in values else [])
        r = run(exe, "book", "build", "--pgn", str(pgn), "--out", str(tmp_path / "b.bin"), *args)
        assert r.returncode == 2 and option in r.stderr, (option, needs, r.stderr)


def test_config_before_a_subcommand_is_refused(exe, tmp_path):
    config = str(ROOT / "configs" / "engine.toml")
    for sub in SUBCOMMANDS:
        r = run(exe, "--config", config, sub, "x")
        assert r.returncode == 2 and f"not to the `{sub}` subcommand" in r.stderr, (sub, r.returncode, r.stderr)
        assert r.stdout == "" and "loaded" not in r.stderr, (sub, r.stdout, r.stderr)
    r = run(exe, "--config", config, "selfplay", "--games", "1")
    assert f"archivist selfplay --config {config}" in r.stderr, r.stderr
    # UCI lines still follow it.
    r = run(exe, "--config", config, "isready", "quit")
    assert r.returncode == 0 and "readyok" in r.stdout, r.stdout
