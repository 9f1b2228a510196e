"""helpers for web cases"""
import http.client, socket, time, sys, json, re, urllib.parse
def req(port, method, path, body=None, headers=None, timeout=10):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse(); data = r.read(); c.close()
    return r.status, dict(r.getheaders()), r.getheader_list if False else data, r
def wait(port, t=40):
    for _ in range(int(t * 10)):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close(); return True
        except OSError: time.sleep(0.1)
    return False
