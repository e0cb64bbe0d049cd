//! Where a URL points, and how much that host is to be trusted.
//!
//! The same `curl … | sh` is a vendor's documented installer when it fetches
//! `https://sh.rustup.rs` and an attack when it fetches a script from a bare
//! IP address or a paste site. Hosts fall in three groups: well-known
//! vendors and registries (documented installers and APIs live there),
//! hosts attackers favour (paste and file-drop sites, request catchers,
//! tunnels, raw IPs, plain HTTP), and the rest, unknown.

/// How far a host is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Reputation {
    /// A vendor, registry or code host whose installers and APIs are documented.
    Known,
    /// Neither known nor suspicious.
    Unknown,
    /// A paste or drop site, a request catcher, a tunnel, an IP address or
    /// plain HTTP: where exfiltrated data and payloads are commonly sent.
    Suspicious,
}

/// Domains (and their subdomains) of vendors, registries and code hosts.
const KNOWN: &[&str] = &[
    "github.com",
    "githubusercontent.com",
    "gitlab.com",
    "bitbucket.org",
    "pypi.org",
    "pythonhosted.org",
    "npmjs.org",
    "npmjs.com",
    "yarnpkg.com",
    "crates.io",
    "rustup.rs",
    "rust-lang.org",
    "docker.com",
    "docker.io",
    "brew.sh",
    "astral.sh",
    "bun.sh",
    "deno.land",
    "deno.com",
    "nodejs.org",
    "python.org",
    "python-poetry.org",
    "pnpm.io",
    "get.pnpm.io",
    "golang.org",
    "go.dev",
    "google.com",
    "googleapis.com",
    "gstatic.com",
    "cloud.google.com",
    "microsoft.com",
    "aka.ms",
    "dot.net",
    "azure.com",
    "windows.net",
    "amazonaws.com",
    "aws.amazon.com",
    "pytorch.org",
    "nvidia.com",
    "anaconda.com",
    "anaconda.org",
    "conda.io",
    "conda-forge.org",
    "apache.org",
    "gradle.org",
    "jetbrains.com",
    "ubuntu.com",
    "debian.org",
    "fedoraproject.org",
    "alpinelinux.org",
    "archlinux.org",
    "redhat.com",
    "anthropic.com",
    "claude.ai",
    "openai.com",
    "huggingface.co",
    "cloudflare.com",
    "vercel.com",
    "vercel.app",
    "netlify.com",
    "fly.io",
    "heroku.com",
    "supabase.com",
    "supabase.co",
    "stripe.com",
    "slack.com",
    "atlassian.com",
    "atlassian.net",
    "notion.so",
    "notion.com",
    "linear.app",
    "sentry.io",
    "ollama.com",
    "ollama.ai",
    "starship.rs",
    "sdkman.io",
    "nixos.org",
    "apple.com",
    "mozilla.org",
    "jsdelivr.net",
    "unpkg.com",
    "cdnjs.cloudflare.com",
    "readthedocs.io",
    "kubernetes.io",
    "k8s.io",
    "helm.sh",
    "hashicorp.com",
    "terraform.io",
    "railway.app",
    "render.com",
    "digitalocean.com",
    "mongodb.com",
    "postgresql.org",
    "redis.io",
    "elastic.co",
    "grafana.com",
    "datadoghq.com",
    "twilio.com",
    "sendgrid.com",
    "shopify.com",
    "figma.com",
    "firebase.google.com",
    "firebaseio.com",
    "playwright.dev",
    "chromium.org",
    "mise.run",
    "volta.sh",
    "nvm.sh",
    "get.docker.com",
    "sh.rustup.rs",
    "scoop.sh",
    "get.scoop.sh",
    "chocolatey.org",
    "powershellgallery.com",
    "install.python-poetry.org",
    "localhost",
    "example.com",
    "example.org",
    "example.net",
    "wikipedia.org",
    "jina.ai",
    "exa.ai",
    "tavily.com",
    "perplexity.ai",
    "mistral.ai",
    "cohere.com",
    "groq.com",
    "together.xyz",
    "replicate.com",
    "openrouter.ai",
    "elevenlabs.io",
    "pexels.com",
    "unsplash.com",
    "youtube.com",
    "googlevideo.com",
    "x.com",
    "twitter.com",
    "reddit.com",
    "arxiv.org",
    "wolframalpha.com",
];

/// Hosts (and their subdomains) where exfiltrated data and payloads go.
const SUSPICIOUS: &[&str] = &[
    "pastebin.com",
    "paste.ee",
    "hastebin.com",
    "ghostbin.co",
    "transfer.sh",
    "file.io",
    "0x0.st",
    "termbin.com",
    "webhook.site",
    "requestbin.com",
    "requestbin.net",
    "pipedream.net",
    "m.pipedream.net",
    "beeceptor.com",
    "ngrok.io",
    "ngrok-free.app",
    "ngrok.app",
    "trycloudflare.com",
    "serveo.net",
    "localtunnel.me",
    "loca.lt",
    "burpcollaborator.net",
    "oastify.com",
    "interact.sh",
    "oast.fun",
    "oast.pro",
    "oast.live",
    "canarytokens.com",
    "duckdns.org",
    "no-ip.org",
    "ddns.net",
    "hopto.org",
    "bit.ly",
    "tinyurl.com",
    "is.gd",
    "t.co",
    "discord.com",
    "discordapp.com",
    "api.telegram.org",
    "temp.sh",
    "anonfiles.com",
    "gofile.io",
    "catbox.moe",
    "dpaste.org",
    "ix.io",
    "sprunge.us",
    "rentry.co",
    "glitch.me",
    "repl.co",
    "workers.dev",
    "herokuapp.com",
];

/// Top-level domains mostly seen on throwaway hosts.
const SUSPICIOUS_TLDS: &[&str] = &[
    ".tk", ".ml", ".ga", ".cf", ".gq", ".top", ".xyz", ".ru", ".su", ".zip", ".click", ".icu",
];

/// The host of `url` (`scheme://host[:port]/…`), lowercased; `None` when
/// `url` has no `://`.
pub(crate) fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest
        .split(['/', '?', '#', '"', '\'', ' ', ')', '`', '>'])
        .next()?;
    let host = authority.rsplit('@').next()?;
    let host = if host.starts_with('[') {
        host.split(']').next().map(|h| h.trim_start_matches('['))?
    } else {
        host.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

fn under(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

fn is_ip(host: &str) -> bool {
    host.parse::<std::net::IpAddr>().is_ok()
}

/// How far the host of `url` is trusted: plain HTTP and IP addresses other
/// than loopback are suspicious whatever the name.
pub(crate) fn reputation(url: &str) -> Reputation {
    let Some(host) = host_of(url) else {
        return Reputation::Unknown;
    };
    if host == "localhost" || host == "127.0.0.1" || host == "::1" || host == "0.0.0.0" {
        return Reputation::Known;
    }
    if is_ip(&host) || SUSPICIOUS.iter().any(|d| under(&host, d)) {
        return Reputation::Suspicious;
    }
    if KNOWN.iter().any(|d| under(&host, d)) {
        return Reputation::Known;
    }
    let plain_http = url
        .get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("http://"));
    if plain_http || SUSPICIOUS_TLDS.iter().any(|tld| host.ends_with(tld)) {
        Reputation::Suspicious
    } else {
        Reputation::Unknown
    }
}

/// The URLs in `text`, with their byte ranges.
pub(crate) fn urls(text: &str) -> impl Iterator<Item = (std::ops::Range<usize>, &str)> {
    memchr::memmem::find_iter(text.as_bytes(), b"://").filter_map(move |at| {
        let start = text[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphabetic())
            .last()
            .map(|(i, _)| i)?;
        let scheme = &text[start..at];
        if !["http", "https", "ftp"]
            .iter()
            .any(|s| scheme.eq_ignore_ascii_case(s))
        {
            return None;
        }
        let end = text[at..]
            .find(|c: char| {
                c.is_whitespace()
                    || matches!(
                        c,
                        '"' | '\'' | '`' | ')' | '>' | '<' | ']' | '|' | ';' | ','
                    )
            })
            .map_or(text.len(), |n| at + n);
        Some((start..end, &text[start..end]))
    })
}

/// The least trusted reputation among the URLs of `text`, and that URL.
pub(crate) fn worst_url(text: &str) -> Option<(Reputation, &str)> {
    urls(text)
        .map(|(_, url)| (reputation(url), url))
        .max_by_key(|(rep, _)| *rep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reputations() {
        assert_eq!(reputation("https://sh.rustup.rs"), Reputation::Known);
        assert_eq!(
            reputation("https://raw.githubusercontent.com/x/y/z.sh"),
            Reputation::Known
        );
        assert_eq!(reputation("https://evilgithub.com/x"), Reputation::Unknown);
        assert_eq!(
            reputation("http://203.0.113.7/x.sh"),
            Reputation::Suspicious
        );
        assert_eq!(
            reputation("https://abc.ngrok-free.app/c"),
            Reputation::Suspicious
        );
        assert_eq!(
            reputation("http://updates.some-cdn.net/i.sh"),
            Reputation::Suspicious
        );
        assert_eq!(reputation("https://user:pw@[::1]:80/"), Reputation::Known);
        assert_eq!(host_of("nonsense"), None);
    }

    #[test]
    fn urls_are_found_with_ranges() {
        let text = "curl -s https://a.b/c?d=1|sh and (http://x.y)";
        let found: Vec<&str> = urls(text).map(|(_, u)| u).collect();
        assert_eq!(found, ["https://a.b/c?d=1", "http://x.y"]);
        assert_eq!(urls("://").count(), 0);
        assert_eq!(urls("é://x").count(), 0);
    }
}
