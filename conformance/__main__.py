"""``python -m conformance run`` (array-api-tests, runner.py) and ``python -m conformance
scipy|sklearn`` (the libraries' own array-API tests, ecosystem.py)."""

import argparse

from . import ecosystem, runner


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m conformance")
    sub = p.add_subparsers(dest="command", required=True)
    runner.add_parser(sub)
    ecosystem.add_parsers(sub)
    args = p.parse_args(argv)
    return args.func(args)


raise SystemExit(main())
