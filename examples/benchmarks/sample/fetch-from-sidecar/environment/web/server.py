# A tiny HTTP/1.0 server (python3-minimal has no http.server): GET /token answers the token.
import socket
import threading

TOKEN = b"osmosis-sidecar-7f3a9c\n"


def handle(conn):
    try:
        request = conn.recv(4096).decode("latin-1")
        path = request.split(" ")[1] if request.count(" ") >= 2 else "/"
        if path == "/token":
            status, body = b"200 OK", TOKEN
        else:
            status, body = b"404 Not Found", b"try /token\n"
        conn.sendall(
            b"HTTP/1.0 " + status + b"\r\nContent-Type: text/plain\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\n\r\n" + body
        )
    except Exception:
        pass
    finally:
        conn.close()


server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("0.0.0.0", 8000))
server.listen(16)
while True:
    connection, _ = server.accept()
    threading.Thread(target=handle, args=(connection,), daemon=True).start()
