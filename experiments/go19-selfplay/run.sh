#!/usr/bin/env bash
# Self-play on 19x19 from stage 9 of the 19x19 network learnt from 9-dan games: does self-play pay on the big board?
# The 13x13 run's settings (experiments/go13-selfplay/run.sh) on 19x19: the 9x9 run's pipeline, komi 7.5,
# learning rate 0.005, no growth, 100 games a generation; every third generation rated against GNU Go 3.8
# level 10 at 100 visits a move (at the default 800 the start already wins 82% on 19x19).
#
#   experiments/go19-selfplay/run.sh [WORK] run|save|restore     (default WORK runs/go19-selfplay)
#
# The settings of experiments/go13-selfplay/run.sh and experiments/go9-selfplay/run.sh apply (CPU_HOURS,
# WORKERS, RATING_GAMES, ...); results are kept in experiments/go19-selfplay/results.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/../.." && pwd)
export SIZE=19 RESULTS=${RESULTS:-$HERE/experiments/go19-selfplay/results}
exec "$HERE/experiments/go13-selfplay/run.sh" "${1:-runs/go19-selfplay}" "${2:-run}"
