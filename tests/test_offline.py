"""The no-network guard in conftest is active for every test: non-loopback connects fail the test."""

import socket

import pytest


@pytest.mark.parametrize("address", [("10.255.255.1", 443), ("93.184.216.34", 80), ("api.openai.com", 443)])
def test_non_loopback_connect_is_refused(address):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(AssertionError, match="tried to reach the network"):
            s.connect(address)
    finally:
        s.close()


def test_loopback_is_allowed():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.socket()
    try:
        client.connect(server.getsockname())
    finally:
        client.close()
        server.close()
