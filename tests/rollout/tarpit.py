"""A TCP listener that accepts connections and never speaks SSH (a host hung in the handshake).

Run inside the test's network namespace: ``python3 tarpit.py ADDRESS PORT``. Every accepted
socket is kept open and never written to, so an SSH client waits for a banner that never comes.
It prints ``listening ADDRESS:PORT`` once bound; tests/rollout/run.sh waits for that line.
"""
import socket
import sys


def main(argv):
    """Listen on argv[1]:argv[2] (IPv4 address, TCP port) and hold every connection silently."""
    address, port = argv[1], int(argv[2])
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((address, port))
    server.listen(64)
    print("listening %s:%d" % (address, port), flush=True)
    held = []
    while True:
        conn, _peer = server.accept()
        held.append(conn)   # never read, never written, never closed


if __name__ == "__main__":
    main(sys.argv)
