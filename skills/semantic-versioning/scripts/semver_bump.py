#!/usr/bin/env python3
"""Compute the next semantic version, or compare two versions.

Usage:
    semver_bump.py VERSION (major|minor|patch) [--pre LABEL]
    semver_bump.py VERSION pre
    semver_bump.py VERSION release
    semver_bump.py --compare A B

major/minor/patch bump that part and reset the lower ones; with --pre the
result becomes the first pre-release of that version (2.0.0-rc.1).
`pre` increments the last numeric field of an existing pre-release
(2.0.0-rc.1 becomes 2.0.0-rc.2). `release` drops the pre-release
(2.0.0-rc.2 becomes 2.0.0). --compare prints -1, 0 or 1 following the
precedence rules, where build metadata is ignored.
Exit status: 0 on success, 2 on invalid input.
"""

import re
import sys

VERSION = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)"
    r"(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)
LABEL = re.compile(r"^[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*$")


class VersionError(ValueError):
    pass


def parse(text):
    found = VERSION.match(text.strip().lstrip("v"))
    if not found:
        raise VersionError(f"not a semantic version: {text!r}")
    major, minor, patch, pre, _build = found.groups()
    return int(major), int(minor), int(patch), pre.split(".") if pre else []


def render(major, minor, patch, pre):
    core = f"{major}.{minor}.{patch}"
    return f"{core}-{'.'.join(pre)}" if pre else core


def compare_identifiers(left, right):
    left_numeric, right_numeric = left.isdigit(), right.isdigit()
    if left_numeric and right_numeric:
        return (int(left) > int(right)) - (int(left) < int(right))
    if left_numeric != right_numeric:
        # Numeric identifiers always sort before alphanumeric ones.
        return -1 if left_numeric else 1
    return (left > right) - (left < right)


def compare(a, b):
    left, right = parse(a), parse(b)
    if left[:3] != right[:3]:
        return (left[:3] > right[:3]) - (left[:3] < right[:3])
    left_pre, right_pre = left[3], right[3]
    # A release sorts after any of its pre-releases.
    if not left_pre or not right_pre:
        return (not left_pre) - (not right_pre)
    for left_id, right_id in zip(left_pre, right_pre):
        result = compare_identifiers(left_id, right_id)
        if result:
            return result
    return (len(left_pre) > len(right_pre)) - (len(left_pre) < len(right_pre))


def bump(text, part, pre_label=None):
    major, minor, patch, pre = parse(text)
    if part == "pre":
        if not pre:
            raise VersionError("`pre` needs a pre-release version; use --pre with a bump instead")
        for index in range(len(pre) - 1, -1, -1):
            if pre[index].isdigit():
                pre[index] = str(int(pre[index]) + 1)
                return render(major, minor, patch, pre)
        return render(major, minor, patch, pre + ["1"])
    if part == "release":
        return render(major, minor, patch, [])
    if part == "major":
        # 2.0.0-rc.1 bumped to major is 2.0.0: the pre-release already targets it.
        if not (pre and minor == 0 and patch == 0):
            major += 1
        minor, patch = 0, 0
    elif part == "minor":
        if not (pre and patch == 0):
            minor += 1
        patch = 0
    elif part == "patch":
        if not pre:
            patch += 1
    else:
        raise VersionError(f"unknown part {part!r}: use major, minor, patch, pre or release")
    if pre_label:
        if not LABEL.match(pre_label):
            raise VersionError(f"invalid pre-release label: {pre_label!r}")
        return render(major, minor, patch, pre_label.split(".") + ["1"])
    return render(major, minor, patch, [])


def main(argv):
    try:
        if len(argv) == 3 and argv[0] == "--compare":
            print(compare(argv[1], argv[2]))
            return 0
        if len(argv) == 2:
            print(bump(argv[0], argv[1]))
            return 0
        if len(argv) == 4 and argv[2] == "--pre":
            print(bump(argv[0], argv[1], argv[3]))
            return 0
    except VersionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
