#!/usr/bin/python3
"""Checks the shape rules of docs/architecture.md ("The loop's owners") over a
source folder: no function longer than --max-lines lines (clang-tidy's
readability-function-size, LineThreshold), and no class or struct with
methods holding more than --max-members data members (clang-query: the
FieldDecls of each record defined under the folder). Plain data records
(counts, options, file records: no methods of their own) are not limited.

Usage (after a configure that wrote build/release/compile_commands.json):
  scripts/check_shape.py                  # crawler/, 80 lines, 15 members
  scripts/check_shape.py --dir crawler/loop --max-members 15
Exit status 1 when a rule is broken (each offender printed), 0 otherwise.
Cost: one clang-tidy and one clang-query pass per .cc file (minutes).
Needs clang-tidy and clang-query (clang-tidy, clang-tools: install-deps.sh).
"""
import argparse
import json
import os
import re
import subprocess
import sys


def sources(build, folder):
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    root = os.path.abspath(folder) + os.sep
    return sorted({e["file"] for e in entries if e["file"].startswith(root)})


def long_functions(build, files, max_lines, folder):
    config = ("{Checks: '-*,readability-function-size', CheckOptions: "
              "[{key: readability-function-size.LineThreshold, value: '%d'}]}"
              % max_lines)
    header_filter = re.escape(os.path.abspath(folder))
    found = set()
    for f in files:
        out = subprocess.run(
            ["clang-tidy", "-p", build, "--quiet", "--config", config,
             "--header-filter", header_filter, f],
            capture_output=True, text=True).stdout
        for line in out.splitlines():
            if "exceeds recommended size" in line:
                found.add(line.split(" [readability")[0])
    return sorted(found)


RECORD = re.compile(r"^CXXRecordDecl .*<([^:>]+):(\d+):.*\b(class|struct) "
                    r"(\w+) definition")


def big_records(build, files, max_members, folder):
    query = ("set output dump\n"
             "match cxxRecordDecl(isDefinition(), unless(isImplicit()), "
             "unless(isLambda()), isExpansionInFileMatching(\"%s/\"))\n"
             % re.escape(os.path.abspath(folder)))
    seen = {}
    for f in files:
        out = subprocess.run(["clang-query", "-p", build, "-c",
                              query.splitlines()[0], "-c",
                              query.splitlines()[1], f],
                             capture_output=True, text=True).stdout
        current = None
        for line in out.splitlines():
            m = RECORD.match(line)
            if m:
                current = "%s:%s %s" % (m.group(1), m.group(2), m.group(4))
                seen.setdefault(current, [0, 0])
                seen[current] = [0, 0]
                continue
            if current is None or not line[:2] in ("|-", "`-"):
                continue
            if line[2:].startswith("FieldDecl"):
                seen[current][0] += 1
            elif (line[2:].startswith("CXXMethodDecl") or
                  line[2:].startswith("CXXConstructorDecl")) and \
                    " implicit " not in line:
                seen[current][1] += 1
    return sorted("%s: %d data members" % (name, fields)
                  for name, (fields, methods) in seen.items()
                  if methods > 0 and fields > max_members)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", default="crawler")
    parser.add_argument("--build", default="build/release")
    parser.add_argument("--max-lines", type=int, default=80)
    parser.add_argument("--max-members", type=int, default=15)
    args = parser.parse_args()
    files = sources(args.build, args.dir)
    if not files:
        sys.exit("check_shape: no sources of %s in %s/compile_commands.json"
                 % (args.dir, args.build))
    functions = long_functions(args.build, files, args.max_lines, args.dir)
    records = big_records(args.build, files, args.max_members, args.dir)
    for line in functions + records:
        print(line)
    print("check_shape: %d files; %d functions over %d lines, %d records over "
          "%d members" % (len(files), len(functions), args.max_lines,
                          len(records), args.max_members))
    sys.exit(1 if functions or records else 0)


if __name__ == "__main__":
    main()
