"""A bot program for the tests of external bots: it answers ``hello`` properly and then
misbehaves on ``act`` as its first argument says (plain Python, no slagwerk).

    crash    exits with status 3 (after a line on standard error)
    hang     never answers
    illegal  answers an action that is never legal
    garbage  answers a line that is not JSON
    error    answers an error
    wrong-id answers the first legal action under another request's id
    record   answers the first legal action and appends every request line to the
             file named by the second argument
    slow     answers the first legal action after sleeping the seconds of the second
             argument
    coins-only, version-2, no-protocol   a proper bot whose hello says it plays only
             Coins, or speaks version 2 of the protocol, or leaves out "protocol"
    farewell answers the first legal action and writes "input ended" on standard
             error when its standard input ends
    slow-hello  answers hello after sleeping the seconds of the second argument
    bad-default  declares a parameter whose default lies outside its own range
    once     starts only if the file named by the second argument does not exist (and
             creates it); a later start exits at once with status 4, as a bot
             whose program went away

``--pid-file FILE`` (last) appends the process id to FILE at start.
"""

import json
import os
import sys
import time

HELLO = {"protocol": "slagwerk-bot", "version": 1,
         "games": {"coins": {}, "koetsieren": {}, "kozel": {}, "aluette": {}},
         "agents": {"misbehave": {"description": "misbehaves", "params": {}}}}


def main():
    args = sys.argv[1:]
    if "--pid-file" in args:
        where = args.index("--pid-file")
        with open(args[where + 1], "a") as fh:
            fh.write(f"{os.getpid()}\n")
        args = args[:where]
    mode = args[0]
    if mode == "once":
        if os.path.exists(args[1]):
            print("misbehaving bot: started once already", file=sys.stderr, flush=True)
            sys.exit(4)
        open(args[1], "w").close()
    if mode == "coins-only":
        HELLO["games"] = {"coins": {}}
    if mode == "version-2":
        HELLO["version"] = 2
    if mode == "no-protocol":
        del HELLO["protocol"]
    if mode == "bad-default":
        HELLO["agents"]["misbehave"]["params"] = {"depth": {"type": "int", "default": 5, "min": 0, "max": 3}}
    for line in sys.stdin:
        request = json.loads(line)
        rid = request.get("id")
        if request.get("type") == "hello":
            if mode == "slow-hello":
                time.sleep(float(args[1]))
            reply = {"id": rid, **HELLO}
        elif mode == "crash":
            print("misbehaving bot: crashing on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        elif mode == "hang":
            while True:
                time.sleep(60)
        elif mode == "illegal":
            reply = {"id": rid, "action": "not-an-action"}
        elif mode == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        elif mode == "error":
            reply = {"id": rid, "error": "I refuse"}
        elif mode == "wrong-id":
            reply = {"id": rid + 100, "action": request["view"]["legal_actions"][0]}
        else:
            if mode == "slow":
                time.sleep(float(args[1]))
            if mode == "record":
                with open(args[1], "a") as fh:
                    fh.write(line.strip() + "\n")
            reply = {"id": rid, "action": request["view"]["legal_actions"][0]}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    if mode == "farewell":
        print("input ended", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
