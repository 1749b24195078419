//! URL rules: which hosts and schemes a tool may be sent to.
//!
//! A URL argument is parsed with the WHATWG URL parser of the `url` crate, so the
//! host is what a client would connect to: `https://good.example@evil.example/` is
//! `evil.example` (the userinfo is ignored), `HTTPS://EVIL.Example./` is `evil.example`
//! (hosts are compared in lowercase, one trailing dot dropped), `http://ex%61mple.com`
//! is `example.com`, international names are compared in their ASCII (punycode) form,
//! IPv4 addresses in any notation the parser accepts (`http://0x7f.1/` is `127.0.0.1`)
//! and IPv6 addresses as addresses. Ports, paths and queries play no part.

use std::net::IpAddr;

use url::{Host, Url};

/// A host pattern of an allow or deny list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPattern {
    /// Exactly this domain (lowercase, no trailing dot).
    Exact(String),
    /// `*.example.com`: any name ending in `.example.com` (held with its leading dot),
    /// at any depth, but not `example.com` itself.
    Subdomains(String),
    /// This IP address.
    Ip(IpAddr),
}

impl HostPattern {
    /// Parses a pattern: `*.` and a domain, an IPv4 address, an IPv6 address (with or
    /// without brackets) or a domain.
    pub fn parse(text: &str) -> Result<HostPattern, String> {
        let plain = |t: &str| {
            t.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_') || !c.is_ascii())
        };
        if let Some(domain) = text.strip_prefix("*.") {
            return match domain_of(domain).filter(|_| plain(domain)) {
                Some(HostName::Domain(domain)) => Ok(HostPattern::Subdomains(format!(".{domain}"))),
                _ => Err("a wildcard must be \"*.\" followed by a domain name".to_owned()),
            };
        }
        let bare = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(text);
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Ok(HostPattern::Ip(ip));
        }
        match domain_of(text).filter(|_| plain(text)) {
            Some(HostName::Domain(domain)) => Ok(HostPattern::Exact(domain)),
            Some(HostName::Ip(ip)) => Ok(HostPattern::Ip(ip)),
            None => Err("not a host name or IP address".to_owned()),
        }
    }

    /// Whether `host` matches.
    pub fn matches(&self, host: &HostName) -> bool {
        match (self, host) {
            (HostPattern::Exact(want), HostName::Domain(name)) => want == name,
            (HostPattern::Subdomains(suffix), HostName::Domain(name)) => {
                name.len() > suffix.len() && name.ends_with(suffix.as_str())
            }
            (HostPattern::Ip(want), HostName::Ip(ip)) => want == ip,
            _ => false,
        }
    }
}

/// The host of a URL, as compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostName {
    /// A domain name: lowercase, ASCII, without a trailing dot.
    Domain(String),
    /// An IP address.
    Ip(IpAddr),
}

impl HostName {
    /// The host as reports write it: the domain, an IPv4 address, or an IPv6
    /// address in brackets.
    pub fn shown(&self) -> String {
        match self {
            HostName::Domain(name) => name.clone(),
            HostName::Ip(IpAddr::V4(ip)) => ip.to_string(),
            HostName::Ip(IpAddr::V6(ip)) => format!("[{ip}]"),
        }
    }
}

fn domain_of(text: &str) -> Option<HostName> {
    if text.is_empty() || text.contains(['/', '@', ':', '?', '#']) {
        return None;
    }
    match Host::parse(text).ok()? {
        Host::Domain(domain) => Some(HostName::Domain(domain_name(&domain))),
        Host::Ipv4(ip) => Some(HostName::Ip(IpAddr::V4(ip))),
        Host::Ipv6(ip) => Some(HostName::Ip(IpAddr::V6(ip))),
    }
}

fn domain_name(domain: &str) -> String {
    let lower = domain.to_ascii_lowercase();
    match lower.strip_suffix('.') {
        Some(stripped) if !stripped.is_empty() => stripped.to_owned(),
        _ => lower,
    }
}

/// What a URL rule says about one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlVerdict {
    /// Allowed.
    Allowed,
    /// The text is not an absolute URL.
    Invalid,
    /// The scheme (lowercase) is not in the rule's list.
    Scheme(String),
    /// The URL has no host, and the rule has host lists.
    NoHost,
    /// The host and the first deny pattern it matches.
    Denied(String, String),
    /// The host, which matches no allow pattern.
    NotAllowed(String),
}

/// A URL rule: the allowed schemes, optional allow hosts, deny hosts.
#[derive(Debug)]
pub struct UrlRule {
    /// Allowed schemes, lowercase.
    pub schemes: Vec<String>,
    /// Hosts of which one must match, if given, with their text.
    pub allow: Option<Vec<(HostPattern, String)>>,
    /// Hosts of which none may match, with their text; they win over `allow`.
    pub deny: Vec<(HostPattern, String)>,
}

impl UrlRule {
    /// The verdict on the URL argument `raw`.
    pub fn check(&self, raw: &str) -> UrlVerdict {
        let Ok(url) = Url::parse(raw) else {
            return UrlVerdict::Invalid;
        };
        let scheme = url.scheme().to_ascii_lowercase();
        if !self.schemes.contains(&scheme) {
            return UrlVerdict::Scheme(scheme);
        }
        if self.allow.is_none() && self.deny.is_empty() {
            return UrlVerdict::Allowed;
        }
        let host = match url.host() {
            None => return UrlVerdict::NoHost,
            Some(Host::Domain("")) => return UrlVerdict::NoHost,
            Some(Host::Domain(domain)) => HostName::Domain(domain_name(domain)),
            Some(Host::Ipv4(ip)) => HostName::Ip(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => HostName::Ip(IpAddr::V6(ip)),
        };
        if let Some((_, text)) = self.deny.iter().find(|(p, _)| p.matches(&host)) {
            return UrlVerdict::Denied(host.shown(), text.clone());
        }
        match &self.allow {
            Some(allow) if !allow.iter().any(|(p, _)| p.matches(&host)) => {
                UrlVerdict::NotAllowed(host.shown())
            }
            _ => UrlVerdict::Allowed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{HostPattern, UrlRule, UrlVerdict};

    fn patterns(list: &[&str]) -> Vec<(HostPattern, String)> {
        list.iter()
            .map(|t| (HostPattern::parse(t).unwrap(), (*t).to_owned()))
            .collect()
    }

    fn rule(allow: &[&str], deny: &[&str]) -> UrlRule {
        UrlRule {
            schemes: vec!["http".to_owned(), "https".to_owned()],
            allow: Some(patterns(allow)),
            deny: patterns(deny),
        }
    }

    #[test]
    fn the_host_is_the_one_connected_to() {
        let rule = rule(
            &["good.example", "*.docs.example", "10.0.0.1", "[::1]"],
            &["bad.docs.example"],
        );
        let not = |h: &str| UrlVerdict::NotAllowed(h.to_owned());
        assert_eq!(
            rule.check("https://good.example@evil.example/"),
            not("evil.example")
        );
        assert_eq!(rule.check("https://GOOD.Example./x"), UrlVerdict::Allowed);
        assert_eq!(
            rule.check("https://good.example:8443/"),
            UrlVerdict::Allowed
        );
        assert_eq!(rule.check("http://go%6Fd.example/"), UrlVerdict::Allowed);
        assert_eq!(rule.check("https://a.b.docs.example/"), UrlVerdict::Allowed);
        assert_eq!(rule.check("https://docs.example/"), not("docs.example"));
        assert_eq!(
            rule.check("https://evildocs.example/"),
            not("evildocs.example")
        );
        assert_eq!(
            rule.check("https://bad.docs.example/"),
            UrlVerdict::Denied("bad.docs.example".to_owned(), "bad.docs.example".to_owned())
        );
        assert_eq!(rule.check("http://0x0a.0.0.1/"), UrlVerdict::Allowed);
        assert_eq!(rule.check("http://[0:0::1]:80/"), UrlVerdict::Allowed);
        assert_eq!(rule.check("http://[::2]/"), not("[::2]"));
        assert_eq!(rule.check("not a url"), UrlVerdict::Invalid);
        assert_eq!(rule.check("/relative/path"), UrlVerdict::Invalid);
        assert_eq!(
            rule.check("file:///etc/passwd"),
            UrlVerdict::Scheme("file".to_owned())
        );
        assert_eq!(
            rule.check("https://good.example.evil.example/"),
            not("good.example.evil.example")
        );
    }

    #[test]
    fn patterns_are_checked() {
        assert!(HostPattern::parse("*.").is_err());
        assert!(HostPattern::parse("*example.com").is_err());
        assert!(HostPattern::parse("a b").is_err());
        assert!(HostPattern::parse("https://x").is_err());
        assert_eq!(
            HostPattern::parse("Example.COM.").unwrap(),
            HostPattern::Exact("example.com".to_owned())
        );
    }
}
