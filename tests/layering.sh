#!/usr/bin/env bash
# The arrows of the architecture, checked on every include of ours: data flows
# from the scenario file through models/ to sim/ or transport/, then to
# validate/ and plots/; sim/ and transport/ never include each other; inside
# models/, sim/ and transport/, each room includes only the rooms below it;
# workflows/ sits above the halves and validate/, the commands above it, and the
# benchmarks beside them. (The libraries in
# the CMakeLists declare the same arrows for linking; this checks the headers.)
#
# usage: tests/layering.sh [SOURCE_DIR]     exit 1 with every include that breaks an arrow
set -u
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 2

# folder: the folders of ours its files may include (itself always).
declare -A allowed=(
  [models/base]=""
  [models/scenario]="models/base"
  [models/rules]="models/scenario models/base"
  [models/results]="models/rules models/scenario models/base"
  [models/impala]="models/base models/scenario"
  [sim]="models"
  # Inside sim/: the event engine knows nothing of exchanges or resources, the
  # resources nothing of exchanges (the engine apart from the model it runs).
  [sim/engine]="models/base"
  [sim/resources]="models/base sim/engine"
  [sim/exchange]="models sim/engine sim/resources"
  [transport]="models"
  [transport/wire]="models"
  [transport/data]="models transport/wire"
  [transport/net]="models transport/wire"
  [transport/rpc]="models transport/wire transport/net"
  [transport/exchange]="models transport/wire transport/net transport/rpc transport/data"
  [transport/testbed]="models"
  # The agents run exchanges; calibration runs benchmark exchanges through the
  # agents, never the other way round.
  [transport/agent]="models transport/wire transport/net transport/rpc transport/data transport/exchange transport/testbed"
  [transport/calibration]="models transport/wire transport/net transport/rpc transport/data transport/exchange transport/testbed transport/agent"
  [validate]="models"
  [plots]="models/base models/results"
  [workflows]="models sim transport validate"
  [cli]="models sim transport validate plots workflows"
  # Benchmarks measure either half, through what the halves offer.
  [bench]="models sim transport"
)

broken=0
checked=0
for folder in "${!allowed[@]}"; do
  [ -d "$folder" ] || { echo "layering: no folder $folder" >&2; exit 2; }
  while IFS= read -r line; do
    file=${line%%:*}
    target=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$line")
    checked=$((checked + 1))
    top=${target%%/*}
    # Only our own folders are checked (system and library headers use <>).
    case $top in
      models | sim | transport | validate | plots | cli | bench | tests) ;;
      *) continue ;;
    esac
    ok=0
    for dest in ${allowed[$folder]}; do
      case $target in "$dest"/*) ok=1 ;; esac
    done
    if [ $ok -eq 0 ]; then
      echo "layering: $file includes $target, which $folder/ may not (it may include: ${allowed[$folder]:-nothing of ours})"
      broken=$((broken + 1))
    fi
  done < <(grep -rn --include='*.h' --include='*.cpp' --include='*.in' '^#include "' "$folder" | grep -v "^$folder/[^:]*:[0-9]*:#include \"$folder/" |
             sed -E 's/^([^:]*):[0-9]*:/\1:/')
done
if [ $checked -eq 0 ]; then
  echo "layering: no includes found under $src; nothing was checked" >&2
  exit 2
fi
if [ $broken -gt 0 ]; then
  echo "layering: $broken include(s) break an arrow"
  exit 1
fi
echo "layering: every include of ours follows the arrows"
