"""A Gomocup brain for the manager's tests: it plays the first empty point (row by row), and misbehaves at
its Nth answer (from 1) as its arguments say: ``sleep:N:SECONDS`` (answers late), ``error:N`` (answers
``ERROR``), ``taken:N`` (answers a point already played), ``exit:N`` (exits without answering)."""

from __future__ import annotations

import sys
import time


def main(arguments: list[str]) -> None:
    faults = {int(words[1]): words for words in (argument.split(":") for argument in arguments)}
    size, stones, answers, board = 0, set[tuple[int, int]](), 0, False

    def move() -> str:
        nonlocal answers
        answers += 1
        fault = faults.get(answers, ["play"])
        if fault[0] == "sleep":
            time.sleep(float(fault[2]))
        elif fault[0] == "error":
            return "ERROR something went wrong"
        elif fault[0] == "taken":
            return "{},{}".format(*next(iter(stones)))
        elif fault[0] == "exit":
            sys.exit(0)
        point = next((x, y) for y in range(size) for x in range(size) if (x, y) not in stones)
        stones.add(point)
        return f"{point[0]},{point[1]}"

    for line in sys.stdin:
        words = line.replace(",", " ").split()
        if not words:
            continue
        command = words[0].upper()
        answer = None
        if board:
            if command == "DONE":
                board, answer = False, move()
            else:
                stones.add((int(words[0]), int(words[1])))
        elif command == "START":
            size, answer = int(words[1]), "OK"
            stones.clear()
        elif command == "BOARD":
            board = True
        elif command == "TURN":
            stones.add((int(words[1]), int(words[2])))
            answer = move()
        elif command == "BEGIN":
            answer = move()
        elif command == "END":
            return
        if answer is not None:
            print("MESSAGE thinking", flush=True)
            print(answer, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
