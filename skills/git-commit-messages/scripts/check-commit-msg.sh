#!/bin/sh
# Checks a git commit message file against common conventions.
# Usage: check-commit-msg.sh FILE
# Install as a hook: cp check-commit-msg.sh .git/hooks/commit-msg
# Exit status: 0 when the message passes, 1 when it has problems, 2 on usage errors.

if [ "$#" -ne 1 ]; then
    echo "usage: $0 COMMIT_MESSAGE_FILE" >&2
    exit 2
fi

message_file=$1
if [ ! -r "$message_file" ]; then
    echo "error: cannot read $message_file" >&2
    exit 2
fi

# Comment lines (starting with #) are stripped by git, so ignore them here too.
awk '
    /^#/ { next }
    { lines[++count] = $0 }
    END {
        problems = 0
        # Skip leading blank lines, as git does.
        first = 1
        while (first <= count && lines[first] ~ /^[ \t]*$/) first++
        if (first > count) {
            print "error: commit message is empty"
            exit 1
        }
        subject = lines[first]
        if (length(subject) > 72) {
            printf "error: subject is %d characters (limit 72)\n", length(subject)
            problems++
        } else if (length(subject) > 50) {
            printf "warning: subject is %d characters (50 or fewer reads best)\n", length(subject)
        }
        if (subject ~ /\.$/) {
            print "error: subject ends with a full stop"
            problems++
        }
        if (subject ~ /^[ \t]/) {
            print "error: subject starts with whitespace"
            problems++
        }
        lowered = tolower(subject)
        if (lowered ~ /^(wip|fix|fixes|update|updates|changes|misc|stuff)$/) {
            print "error: subject does not say what changed"
            problems++
        }
        if (first + 1 <= count && lines[first + 1] !~ /^[ \t]*$/) {
            print "error: line 2 must be blank to separate subject and body"
            problems++
        }
        for (i = first + 2; i <= count; i++) {
            # Long URLs cannot be wrapped, so they are allowed.
            if (length(lines[i]) > 72 && lines[i] !~ /https?:\/\//) {
                printf "warning: body line %d is %d characters (wrap at 72)\n", i - first + 1, length(lines[i])
            }
        }
        exit (problems > 0 ? 1 : 0)
    }
' "$message_file"
