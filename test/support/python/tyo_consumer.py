#!/usr/bin/python3
"""A tyo-mq-style consumer on Debian's python3-socketio, for the compatibility tests.

Run with the Debian interpreter (/usr/bin/python3), which has python3-socketio,
python3-engineio, python3-websocket and python3-requests. The client is built with
python-socketio's defaults: reconnection on, transports polling then an upgrade to
WebSocket (websocket-client sends `Origin: http://<host:port>` on the upgrade).

The protocol's event names and payloads come from the test (one JSON argument), so
nothing here spells them:

    {"url": "http://127.0.0.1:17352",
     "on_connect": [[event, payload], ...],   emitted on every 'connect', in order
     "ready": [event, payload],               then emitted with an ack; the ack prints "ready"
     "listen": [event, ...],                  each received one prints a "message" line
     "transports": null | ["websocket"]}      null: python-socketio's default (polling, upgrade)

Prints one JSON object per line on stdout:
    {"type": "connected", "sid": ..., "transport": ...}
    {"type": "ready", "transport": ...}
    {"type": "message", "event": ..., "data": ..., "transport": ...}
    {"type": "disconnected"}
    {"type": "fatal", "message": ...}              (then exits 1)

Exits (disconnecting first) when its stdin is closed.
"""
import json
import os
import sys
import threading


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def fatal(message):
    out({"type": "fatal", "message": message})
    sys.exit(1)


try:
    import socketio
except ImportError as e:
    fatal("python3-socketio is not installed (apt-get install python3-socketio): %s" % e)
try:
    import requests  # noqa: F401  engine.io's polling transport needs it
except ImportError as e:
    fatal(
        "python3-requests is not installed (apt-get install python3-requests); "
        "python3-engineio's default polling transport cannot connect without it: %s" % e
    )
try:
    import websocket  # noqa: F401  the WebSocket upgrade needs it
except ImportError as e:
    fatal("python3-websocket is not installed (apt-get install python3-websocket): %s" % e)


def main():
    config = json.loads(sys.argv[1])
    sio = socketio.Client()  # defaults: reconnection=True, transports polling + websocket

    def transport():
        try:
            return sio.transport()
        except Exception:  # noqa: BLE001
            return None

    def on_ready(*_args):
        out({"type": "ready", "transport": transport()})

    @sio.event
    def connect():
        out({"type": "connected", "sid": sio.get_sid(), "transport": transport()})
        # As the tyo-mq client does: identify and replay the subscriptions on every connect.
        for event, payload in config.get("on_connect", []):
            sio.emit(event, payload)
        ready = config.get("ready")
        if ready:
            sio.emit(ready[0], ready[1], callback=on_ready)

    @sio.event
    def disconnect():
        out({"type": "disconnected"})

    def listener(name):
        def handler(*args):
            out(
                {
                    "type": "message",
                    "event": name,
                    "data": args[0] if args else None,
                    "transport": transport(),
                }
            )

        return handler

    for name in config.get("listen", []):
        sio.on(name, listener(name))

    try:
        transports = config.get("transports")
        if transports:
            sio.connect(config["url"], transports=transports)
        else:
            sio.connect(config["url"])
    except Exception as e:  # noqa: BLE001
        fatal("initial connect failed: %s: %s" % (type(e).__name__, e))

    # Stay up until the test closes stdin; socket.io runs in its own threads.
    done = threading.Event()

    def watch_stdin():
        sys.stdin.read()
        done.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    done.wait()
    try:
        sio.disconnect()
    except Exception:  # noqa: BLE001
        pass
    sys.stdout.flush()
    # socket.io's reader and reconnect threads are not daemons: leave without joining them.
    os._exit(0)


if __name__ == "__main__":
    main()
