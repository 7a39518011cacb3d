"""A real SMTP server for the email receiver's tests: aiosmtpd (Debian's python3-aiosmtpd) on
127.0.0.1, port 0, with STARTTLS (required) or implicit TLS or neither, and AUTH when a user is
given. Each message received is written to OUT as <n>.eml (as it came) and <n>.json (parsed by
Python's email package: headers, the text and HTML parts, the envelope, whether the session was
TLS and who logged in). Prints "PORT <n>" once listening; stops on SIGTERM.

usage: smtp-server.py OUT --mode starttls|implicit|plain [--cert C --key K] [--user U --password P]
"""
import argparse
import asyncio
import json
import os
import signal
import ssl
from email import policy
from email.parser import BytesParser

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

args = argparse.ArgumentParser()
args.add_argument("out")
args.add_argument("--mode", choices=["starttls", "implicit", "plain"], default="starttls")
args.add_argument("--cert")
args.add_argument("--key")
args.add_argument("--user")
args.add_argument("--password")
opts = args.parse_args()


class Handler:
    def __init__(self):
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        raw = envelope.original_content or envelope.content
        base = os.path.join(opts.out, str(self.count))
        with open(base + ".eml", "wb") as f:
            f.write(raw)
        msg = BytesParser(policy=policy.default).parsebytes(raw)
        text = msg.get_body(("plain",))
        html = msg.get_body(("html",))
        summary = {
            "headers": {k.lower(): str(v) for k, v in msg.items()},
            "text": text.get_content() if text else None,
            "html": html.get_content() if html else None,
            "contentType": msg.get_content_type(),
            "mailFrom": envelope.mail_from,
            "rcptTos": envelope.rcpt_tos,
            "tls": server.transport.get_extra_info("ssl_object") is not None,
            "login": session.auth_data if session.authenticated else None,
        }
        tmp = base + ".json.tmp"
        with open(tmp, "w") as f:
            json.dump(summary, f)
        os.rename(tmp, base + ".json")
        return "250 OK: queued as %d" % self.count


def authenticator(server, session, envelope, mechanism, auth_data):
    if isinstance(auth_data, LoginPassword) and auth_data.login.decode() == opts.user and auth_data.password.decode() == opts.password:
        return AuthResult(success=True, auth_data=auth_data.login.decode())
    return AuthResult(success=False, handled=False)


async def main():
    context = None
    if opts.mode != "plain":
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(opts.cert, opts.key)
    handler = Handler()
    auth = {"authenticator": authenticator, "auth_required": True} if opts.user else {}

    def factory():
        if opts.mode == "starttls":
            return SMTP(handler, hostname="smtp.test", tls_context=context, require_starttls=True, **auth)
        return SMTP(handler, hostname="smtp.test", auth_require_tls=False, **auth)

    loop = asyncio.get_running_loop()
    server = await loop.create_server(factory, "127.0.0.1", 0, ssl=context if opts.mode == "implicit" else None)
    print("PORT %d" % server.sockets[0].getsockname()[1], flush=True)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    server.close()


asyncio.run(main())
