"""A corpus for redaction, written by the tests and the benchmark: a user
(Ana Lima, login ``analima``, host ``ana-thinkpad``) whose planted values
each stand in a line of ordinary developer talk, and a clean corpus of that
talk and code (version numbers, dates, module paths, decorators, npm scopes,
ssh remotes, loopback and documentation addresses) that must come out as it
went in."""

HOME = "/home/analima"
ROOT = "/home/analima/work/billing"
USER = {"login": "analima", "host": "ana-thinkpad", "name": "Ana Lima", "email": "ana.lima@acme-billing.io"}

PLANTED = {  # kind -> lines, each holding one value of that kind (the value between [[ ]])
    "home": ["ls [[/home/analima]]/.config/app", "opened [[C:\\Users\\analima]]\\Desktop\\notes.txt",
             "the file is [[C:\\\\Users\\\\analima]]\\\\AppData in the JSON", "see file://[[/home/analima]]/report.pdf",
             "on WSL: [[/mnt/c/Users/analima]]/src", "macOS keeps it in [[/Users/analima]]/Library",
             "a URL's path: ?file=[[%2Fhome%2Fanalima]]%2Fnotes.txt", 'JSON escapes it: "[[\\/home\\/analima]]\\/x"',
             "Windows ignores case: [[c:/users/ANALIMA]]/Desktop",
             'escaped twice: "[[\\\\/home\\\\/analima]]\\\\/x"',
             'a Write of JSON, in JSON: "[[C:\\\\\\\\Users\\\\\\\\analima]]\\\\\\\\x"'],
    "project": ["pytest [[/home/analima/work/billing]]/tests -x", "cd [[/home/analima/work/billing]] && make"],
    "user": ["whoami printed [[analima]]", "chown [[analima]]:staff build/", "saved [[analima]]-notes.md",
             "tail -f /var/log/[[analima]].log"],
    "host": ["ssh into [[ana-thinkpad]] worked", "prompt: analima@[[ana-thinkpad]]:~$",
             "see [[ana-thinkpad]]-screenshot.png"],
    "git": ["Author: [[Ana Lima]] <x>", "git config user.email [[ana.lima@acme-billing.io]]"],
    "email": ["ask [[bob.smith@contoso.com]] about the invoice", "Reported-by: [[dev+ci@bigcorp.co.uk]]",
              "an entity: [[bob.smith&#64;contoso.com]]", "mailto:[[bob.smith%40contoso.com]]"],
    "ip": ["the database is at [[10.20.30.40]]:5432", "curl http://[[192.168.1.77]]/health",
           "nameserver [[2a02:1234:5678::53]]", "bind [[fe80::1c2d:3eff:fe4f:5a6b]] on eth0",
           "ssh root@[[10.20.30.40]] -p 22", "mapped: [[::ffff:10.1.2.3]]."],
    "internal-host": ["deploy to [[api.prod.internal]] now", "jenkins at https://[[ci.acme.corp]]/job/x",
                      "printer [[laser-2.lan]] is down", "mDNS: [[ana-pi.local]]",
                      "git clone git@[[gitlab.acme.internal]]:team/billing.git"],
    "key": ["export OPENAI_API_KEY=[[sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd]]",
            "aws [[AKIAIOSFODNN7EXAMPLQ]] leaked", "git clone https://[[ana:hunter2secret]]@git.example.org/x.git",
            "PGPASSWORD=[[Sup3rS3cretPw]] psql -h db", 'db_password: "[[hunter2x!]]"',
            "curl 'https://api.example.org/v1?user=ana&token=[[s3cr3tT0kenValue123]]'",
            "title cut short: deploy with [[ghp_a1B2c3D4e5F6g]]…"],
}

CLEAN = [
    "Bump lodash to 4.17.21 and react to 18.2.0; python==3.11.7 works, so does node v20.11.1.",
    "Release 1.2.3 on 2024-05-06 at 12:30:45 UTC; the build 2024.05.06.1 passed.",
    "import os.path, numpy.linalg as la; from conv.home.redaction import Redactor",
    "@app.route('/health') and @pytest.fixture are decorators; @types/node and @babel/core are npm scopes.",
    "icon@2x.png and logo@3x.webp are images; npm i react@latest, pip install 'black>=24.1.0'.",
    "git remote add origin git@github.com:acme/billing.git; ssh -T git@gitlab.com",
    "Contact you@example.com or admin@example.org, as the docs say; test@foo.test too.",
    "It listens on 127.0.0.1:8080 and 0.0.0.0; netmask 255.255.255.0; docs use 192.0.2.10 and 2001:db8::1.",
    "std::vector<int> v; std::map::iterator it; a::b::c in Rust: crate::module::Item.",
    "threading.local() keeps state; ~/.local/bin is on PATH; the .local folder is hidden.",
    "MAC aa:bb:cc:dd:ee:ff is not an address of ours; 12:34:56 is a time; ratio 16:9.",
    "See https://github.com/acme/billing/pull/42 and https://docs.python.org/3/library/re.html.",
    "def load(path):\n    with open(path) as f:\n        return json.load(f)  # 3.14 is pi, 1e-9 tiny\n",
    "The root user and the admin group; the project root is where pyproject.toml lives.",
    "a.b.c.d = 1 in JavaScript; obj.internal = true; self.local = None; config.corp_name = 'x'",
    "ls /home/ and /Users/Shared are fine; C:\\Program Files\\App is no one's home.",
    "version 10.0.19045.3803 of Windows; v1.2.3.4 tagged; semver ^1.2.3 and ~2.0.0.",
    "Python slices: a[1::2], b[::3], grid[10::20]; a dict {1: 2}; x[::-1] reversed.",
    "password = get_password(); token: str; api_key=os.environ['KEY']; PASSWORD=$PGPASSWORD; max_tokens=1024",
    "@pytest.mark.local runs it here; the secret is patience; TOKEN_LIMIT=4096; ?key=value in the docs",
]


def planted_text() -> str:
    return "\n".join(line.replace("[[", "").replace("]]", "") for lines in PLANTED.values() for line in lines)


def planted_values() -> dict[str, list[str]]:
    return {kind: [line.split("[[")[1].split("]]")[0] for line in lines] for kind, lines in PLANTED.items()}


def clean_text() -> str:
    return "\n".join(CLEAN)
