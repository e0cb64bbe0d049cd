#!/usr/bin/env python3
"""Profile a CSV or TSV file and report the problems worth cleaning.

Usage:
    csv_profile.py FILE [--delimiter CHAR] [--examples N]

Reports the detected encoding and delimiter, the header, rows whose field
count differs from the header, duplicate rows, and for each column: empty
values, distinct values, an inferred type, values with stray whitespace and a
few examples. Reads the file only; never modifies it.
Exit status: 0 on success, 2 when the file cannot be read or parsed.
"""

import argparse
import csv
import io
import re
import sys
from collections import Counter

EMPTY_MARKERS = {"", "na", "n/a", "null", "none", "nan", "-", "#n/a"}
INTEGER = re.compile(r"^[+-]?\d+$")
DECIMAL = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")
GROUPED_NUMBER = re.compile(r"^[+-]?\d{1,3}([,.' ]\d{3})+([.,]\d+)?$")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$")
SLASH_DATE = re.compile(r"^\d{1,2}[/.]\d{1,2}[/.]\d{2,4}$")
LEADING_ZERO = re.compile(r"^0\d+$")


def read_text(path):
    """Decode the file, trying UTF-8 (with or without BOM) before Latin-1."""
    with open(path, "rb") as handle:
        raw = handle.read()
    for encoding in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        if encoding == "utf-8-sig":
            encoding = "utf-8 with BOM" if raw.startswith(b"\xef\xbb\xbf") else "utf-8"
        return text, encoding
    raise ValueError("undecodable")  # latin-1 accepts every byte, so unreachable


def detect_delimiter(text):
    sample = text[:65536]
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def classify(value):
    stripped = value.strip()
    if stripped.lower() in EMPTY_MARKERS:
        return "empty"
    if LEADING_ZERO.match(stripped):
        return "text-with-leading-zero"
    if INTEGER.match(stripped):
        return "integer"
    if DECIMAL.match(stripped):
        return "decimal"
    if GROUPED_NUMBER.match(stripped):
        return "number-with-separators"
    if ISO_DATE.match(stripped):
        return "iso-date"
    if SLASH_DATE.match(stripped):
        return "ambiguous-date"
    return "text"


def profile_column(name, values, examples):
    kinds = Counter(classify(value) for value in values)
    empties = kinds.pop("empty", 0)
    distinct = len(set(values))
    padded = sum(1 for value in values if value != value.strip())
    if not kinds:
        inferred = "all empty"
    elif len(kinds) == 1:
        inferred = next(iter(kinds))
    else:
        inferred = "mixed: " + ", ".join(f"{kind} {count}" for kind, count in kinds.most_common())
    shown = ", ".join(repr(value) for value, _ in Counter(values).most_common(examples))
    print(f"  {name!r}")
    print(f"    type: {inferred}")
    print(f"    empty: {empties}   distinct: {distinct}   stray whitespace: {padded}")
    print(f"    most common: {shown}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--delimiter", help="override delimiter detection (use '\\t' for tab)")
    parser.add_argument("--examples", type=int, default=3, help="examples shown per column")
    args = parser.parse_args()

    try:
        text, encoding = read_text(args.file)
    except OSError as error:
        print(f"cannot read {args.file}: {error}", file=sys.stderr)
        return 2

    if args.delimiter:
        delimiter = "\t" if args.delimiter in ("\\t", "tab") else args.delimiter
    else:
        delimiter = detect_delimiter(text)
    try:
        # Track where each record ends, since quoted fields may span lines.
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        rows = []
        end_lines = []
        for row in reader:
            rows.append(row)
            end_lines.append(reader.line_num)
    except csv.Error as error:
        print(f"cannot parse {args.file}: {error}", file=sys.stderr)
        return 2
    if not rows:
        print(f"{args.file}: empty file")
        return 0

    header, records, record_lines = rows[0], rows[1:], end_lines[1:]
    print(f"file: {args.file}")
    print(f"encoding: {encoding}   delimiter: {delimiter!r}")
    print(f"columns: {len(header)}   data rows: {len(records)}")

    unnamed = [index + 1 for index, name in enumerate(header) if not name.strip()]
    if unnamed:
        print(f"unnamed columns at positions: {unnamed}")
    repeated = [name for name, count in Counter(header).items() if count > 1]
    if repeated:
        print(f"repeated column names: {repeated}")

    ragged = [(line, len(row)) for line, row in zip(record_lines, records) if len(row) != len(header)]
    print(f"ragged rows (field count differs from header): {len(ragged)}")
    for line, width in ragged[:10]:
        print(f"  record ending on line {line}: {width} fields")

    blank = sum(1 for row in records if all(not field.strip() for field in row))
    duplicates = sum(count - 1 for count in Counter(tuple(row) for row in records).values() if count > 1)
    print(f"blank rows: {blank}   duplicate rows: {duplicates}")

    print("per column:")
    for index, name in enumerate(header):
        values = [row[index] for row in records if index < len(row)]
        profile_column(name, values, args.examples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
