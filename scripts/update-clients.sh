#!/usr/bin/env bash
# Moves Hone's client profiles to newer client versions in one command, leaving a diff to review:
#
#   scripts/update-clients.sh claude-code@2.1.400 codex@0.180.0
#   scripts/update-clients.sh            # re-capture and re-check the pinned versions
#
# 1. pins each given version in scripts/install-clients.sh and in its profile's VERSION
#    (crates/hone-clients/src/clients/<client>.rs);
# 2. installs the pinned clients into the user's cache (never the repository);
# 3. re-captures each client's own skills, and Claude Code's Skill tool, from its requests on an
#    empty project, offline, into crates/hone-clients/src/clients/builtins/<client>.json;
# 4. runs the real-client suite: its report says per client how many planted entries the new
#    version lists exactly as Hone predicts, and each divergence with a diff.
# Nothing is committed: review `git diff`, fix the profile where the suite fails, commit.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
say() { printf '\033[1mupdate-clients:\033[0m %s\n' "$*"; }

for spec in "$@"; do
  client="${spec%@*}"
  version="${spec##*@}"
  case "$client" in
    claude-code) profile=claude_code ;;
    codex | gemini | opencode | copilot) profile="$client" ;;
    *) echo "update-clients: unknown client '$client' (claude-code, codex, gemini, opencode, copilot)" >&2; exit 2 ;;
  esac
  if [ "$client" = "$version" ] || [ -z "$version" ]; then
    echo "update-clients: write CLIENT@VERSION, e.g. codex@0.180.0" >&2
    exit 2
  fi
  line="$(grep -E "^  \"$client\|" scripts/install-clients.sh)"
  old="$(printf '%s' "$line" | cut -d'|' -f2)"
  old="${old##*@}"
  say "$client: $old -> $version"
  sed -i -E "/^  \"$client\|/ s/@$old/@$version/g" scripts/install-clients.sh
  sed -i -E "s/^pub const VERSION: &str = \"[^\"]*\";/pub const VERSION: \&str = \"$version\";/" \
    "crates/hone-clients/src/clients/$profile.rs"
done

scripts/install-clients.sh
say "re-capturing the clients' own skills"
HONE_WRITE_BUILTINS=1 cargo test --workspace --test clients_real recapture_builtins -- --ignored --nocapture
say "the profiles' unit tests (each capture names its profile's version)"
cargo test --workspace --lib clients::
say "the real-client suite"
status=0
cargo test --workspace --test clients_real -- --nocapture || status=$?
git --no-pager diff --stat -- scripts/install-clients.sh crates/hone-clients/src/clients
if [ "$status" -ne 0 ]; then
  say "the suite found divergences (above): the new versions behave differently; fix the profiles, then run it again"
fi
exit "$status"
