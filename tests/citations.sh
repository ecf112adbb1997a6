#!/usr/bin/env bash
# The project stands alone: every fact about Impala it cites by number (§2.4,
# §§5.6-5.7, "docs/impala.md §1.6") is a numbered heading of docs/impala.md,
# and no file of it names a path outside the repository.
#
# usage: tests/citations.sh [SOURCE_DIR]     exit 1 naming every citation that does not resolve
set -u
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 2
facts=docs/impala.md
[ -f "$facts" ] || { echo "citations: no $facts" >&2; exit 2; }

# The numbers docs/impala.md defines: "## 2. Title" and "### 2.4 Title".
declare -A defined=()
while read -r number; do defined[$number]=1; done < <(grep -oE '^##+ [0-9]+(\.[0-9]+)?' "$facts" | awk '{print $2}')
[ ${#defined[@]} -gt 0 ] || { echo "citations: $facts defines no numbered section" >&2; exit 2; }

files=$(git ls-files 2>/dev/null || find . -type f -not -path './build/*' -not -path './.git/*')
broken=0
cited=0
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  text=${rest#*:}
  # Each citation: § or §§, then numbers joined by "-", ",", "and".
  while read -r citation; do
    [ -n "$citation" ] || continue
    for number in $(grep -oE '[0-9]+(\.[0-9]+)?' <<<"$citation"); do
      cited=$((cited + 1))
      if [ -z "${defined[$number]:-}" ]; then
        echo "citations: $file:$line cites §$number, which $facts does not define"
        broken=$((broken + 1))
      fi
    done
  done < <(grep -oE '§§? ?[0-9]+(\.[0-9]+)?(( ?- ?|, | and )[0-9]+(\.[0-9]+)?)*' <<<"$text")
done < <(grep -nH '§' $(grep -vE '^(build|\.git)/' <<<"$files" | grep -vE '\.(png|svg|gz)$') 2>/dev/null)

# Paths outside the repository: the facts live in its own docs. A relative
# path that climbs (../) must land inside the repository from the file that
# names it.
root=$(pwd -P)
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  while read -r path; do
    [ -n "$path" ] || continue
    target=$(realpath -m "$(dirname "$file")/$path")
    case $target/ in
      "$root"/*) ;;
      *) echo "citations: $file:$line names $path, outside the repository"; broken=$((broken + 1)) ;;
    esac
  done < <(grep -oE '(\.\./)+[A-Za-z0-9_.-][A-Za-z0-9_./-]*' <<<"${rest#*:}")
done < <(grep -nHE '\.\./' $(grep -vE '^(build|\.git)/' <<<"$files" | grep -vE '\.(png|svg|gz)$') 2>/dev/null)

if [ $cited -eq 0 ]; then
  echo "citations: no § citation found under $src; nothing was checked" >&2
  exit 2
fi
if [ $broken -gt 0 ]; then
  echo "citations: $broken problem(s)"
  exit 1
fi
echo "citations: all $cited numbers cited resolve in $facts; no path outside the repository"
