# Keeping a run's folders in the repository between sessions (a session may end on one machine and the
# next start on a fresh one): sourced by go9_run.sh and gomoku_run.sh.

keep_folder() {  # $1: a work folder (e.g. matches), $2: where to keep it; files being written (*.part) are left out
    [ -d "$1" ] || return 0
    mkdir -p "$2"
    cp -r "$1/." "$2/"
    find "$2" -name '*.part' -delete
}

restore_folder() {  # $1: a kept folder, $2: the work folder; what the work folder has already stays
    [ -d "$1" ] || return 0
    mkdir -p "$2"
    cp -rn "$1/." "$2/"
}
