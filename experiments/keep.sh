# Keeping a run's folders in the repository, so that a run that stops on one machine goes on on another:
# sourced by the experiments' run.sh scripts. A folder of SGF games is kept as one
# compressed archive beside it (NAME-sgf.tar.xz); everything else as it is.

keep_folder() {  # $1: a work folder (e.g. matches), $2: where to keep it; files being written (*.part) are left out
    [ -d "$1" ] || return 0
    mkdir -p "$2"
    (cd "$1" && tar -cf - --exclude='*.sgf' --exclude='*.part' .) | (cd "$2" && tar -xf -)
    find "$2" -type d -empty -delete
    (cd "$1" && find . -type f -name '*.sgf' -printf '%h\n' | sort -u) | while read -r folder; do
        archive="$2/$folder-sgf.tar.xz"
        [ "$folder" = . ] && archive="$2/games-sgf.tar.xz"   # games at the top: not a hidden .-sgf.tar.xz
        mkdir -p "$2/$(dirname "$folder")"
        (cd "$1/$(dirname "$folder")" && find "$(basename "$folder")" -maxdepth 1 -name '*.sgf' -printf '%p\n' \
            | sort | tar -cJf "$archive" --owner=0 --group=0 --mtime=@0 -T -)
    done
}

restore_folder() {  # $1: a kept folder, $2: the work folder; what the work folder has already stays
    [ -d "$1" ] || return 0
    mkdir -p "$2"
    cp -rn "$1/." "$2/"
    find "$2" -name '*-sgf.tar.xz' | while read -r archive; do
        tar -xkf "$archive" -C "$(dirname "$archive")" 2>/dev/null || true
        rm "$archive"
    done
}

KEEP_LOOP_RUN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/loop_run.py"

keep_loop() {  # $1: an `engine loop` run folder, $2: where to keep it: the run in $2/loop, its ratings and plot in $2
    mkdir -p "$2"
    python "$KEEP_LOOP_RUN" save "$1" "$2/loop"
    for name in ratings.md progress.png search.png; do
        if [ -f "$1/$name" ]; then cp "$1/$name" "$2/$name"; fi
    done
}
