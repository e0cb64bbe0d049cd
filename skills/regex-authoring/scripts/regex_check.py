#!/usr/bin/env python3
"""Test a regular expression against strings that must and must not match.

Usage:
    regex_check.py PATTERN [--match FILE] [--no-match FILE] [--search] [-i]

Each FILE holds one test string per line (a trailing newline is ignored).
By default a line counts as matching only if the whole line matches
(re.fullmatch), which is what validation needs; --search accepts a match
anywhere in the line instead. Exit status: 0 when every line behaves as
expected, 1 when any line does not, 2 on usage errors or an invalid pattern.
"""

import argparse
import re
import sys
import time

# A single test line slower than this suggests catastrophic backtracking.
SLOW_LINE_SECONDS = 0.5


def read_lines(path):
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n").rstrip("\r") for line in handle]


def check(regex, lines, should_match, use_search):
    failures = 0
    for number, line in enumerate(lines, start=1):
        started = time.perf_counter()
        found = regex.search(line) if use_search else regex.fullmatch(line)
        elapsed = time.perf_counter() - started
        matched = found is not None
        if matched != should_match:
            failures += 1
            expectation = "should match" if should_match else "should NOT match"
            print(f"FAIL line {number}: {line!r} {expectation}")
        if elapsed > SLOW_LINE_SECONDS:
            print(f"SLOW line {number}: {elapsed:.2f}s, check for nested quantifiers")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pattern")
    parser.add_argument("--match", dest="match_file", help="lines that must match")
    parser.add_argument("--no-match", dest="no_match_file", help="lines that must not match")
    parser.add_argument("--search", action="store_true", help="match anywhere, not the whole line")
    parser.add_argument("-i", "--ignore-case", action="store_true")
    args = parser.parse_args()

    if not args.match_file and not args.no_match_file:
        parser.error("give --match FILE, --no-match FILE, or both")

    flags = re.IGNORECASE if args.ignore_case else 0
    try:
        regex = re.compile(args.pattern, flags)
    except re.error as error:
        print(f"invalid pattern: {error}", file=sys.stderr)
        return 2

    total = 0
    failures = 0
    try:
        for path, should_match in ((args.match_file, True), (args.no_match_file, False)):
            if path:
                lines = read_lines(path)
                total += len(lines)
                failures += check(regex, lines, should_match, args.search)
    except OSError as error:
        print(f"cannot read test file: {error}", file=sys.stderr)
        return 2

    print(f"{total - failures}/{total} lines behaved as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
