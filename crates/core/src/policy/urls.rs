//! URL rules: which hosts and schemes a tool may be sent to.
//!
//! A URL argument is parsed with the WHATWG URL parser of the `url` crate, and its
//! host is normalised the same way whatever the scheme: percent-escapes decoded,
//! international names in their ASCII (punycode) form, lowercase, one trailing dot
//! dropped, IPv4 addresses in any notation the WHATWG parser accepts (`0x7f.1` is
//! `127.0.0.1`), IPv6 addresses as addresses, and an IPv4-mapped IPv6 address
//! (`[::ffff:127.0.0.1]`) as its IPv4 address. For schemes the WHATWG parser keeps
//! the host of as opaque text (`sftp:`, `gopher:`, ...), that text goes through the
//! same host parser; a host it refuses cannot be judged, which is a violation when
//! the rule has host lists.
//!
//! So that the host judged is the one a client connects to, the authority is read a
//! second time as RFC 3986 reads it (the reading of curl, wget and Python): up to the
//! first `/`, `?` or `#` (a `\` is not a separator there), the host after the last
//! `@`, before the port. When the two readings give different hosts
//! (`http://docs.example.com\@evil.example/`), or the authority has more than one
//! `@`, the URL is ambiguous: a violation. Ports, paths and queries play no part.
//!
//! Host lists are compiled into hash maps (names, wildcard suffixes, and addresses by
//! prefix length), so a lookup costs the same for ten patterns as for a million.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::{Host, Url};

/// A named class of hosts, written `class:NAME` in a host list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// `127.0.0.0/8`, `::1`, `localhost` and `*.localhost`.
    Loopback,
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (RFC 1918) and `fc00::/7`.
    Private,
    /// `169.254.0.0/16` and `fe80::/10`.
    LinkLocal,
    /// `0.0.0.0/8` and `::`.
    Unspecified,
    /// Cloud metadata services: `169.254.169.254`, `100.100.100.200`,
    /// `fd00:ec2::254` and `metadata.google.internal`.
    Metadata,
}

impl Class {
    /// The classes by name, as host lists write them after `class:`.
    pub(crate) const ALL: [(&'static str, Class); 5] = [
        ("loopback", Class::Loopback),
        ("private", Class::Private),
        ("link-local", Class::LinkLocal),
        ("unspecified", Class::Unspecified),
        ("metadata", Class::Metadata),
    ];

    /// The patterns the class stands for.
    fn patterns(self) -> Vec<HostPattern> {
        let v4 = |a: u8, b: u8, c: u8, d: u8, p: u8| {
            HostPattern::Net(Net::V4(u32::from(Ipv4Addr::new(a, b, c, d)), p))
        };
        let v6 = |ip: Ipv6Addr, p: u8| HostPattern::Net(Net::V6(u128::from(ip), p));
        let exact = |name: &str| HostPattern::Exact(name.to_owned());
        match self {
            Class::Loopback => vec![
                v4(127, 0, 0, 0, 8),
                v6(Ipv6Addr::LOCALHOST, 128),
                exact("localhost"),
                HostPattern::Subdomains(".localhost".to_owned()),
            ],
            Class::Private => vec![
                v4(10, 0, 0, 0, 8),
                v4(172, 16, 0, 0, 12),
                v4(192, 168, 0, 0, 16),
                v6(Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7),
            ],
            Class::LinkLocal => vec![
                v4(169, 254, 0, 0, 16),
                v6(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10),
            ],
            Class::Unspecified => vec![v4(0, 0, 0, 0, 8), v6(Ipv6Addr::UNSPECIFIED, 128)],
            Class::Metadata => vec![
                v4(169, 254, 169, 254, 32),
                v4(100, 100, 100, 200, 32),
                v6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254), 128),
                exact("metadata.google.internal"),
            ],
        }
    }
}

/// An address range: the address with the bits past the prefix zero, and the prefix
/// length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Net {
    /// An IPv4 range (prefix 0 to 32).
    V4(u32, u8),
    /// An IPv6 range (prefix 0 to 128).
    V6(u128, u8),
}

impl Net {
    /// Parses `ADDRESS/PREFIX` (an IPv6 address with or without brackets); `None`
    /// when `text` is not an IP address and `/`.
    fn parse(text: &str) -> Result<Option<Net>, String> {
        let Some((address, prefix)) = text.split_once('/') else {
            return Ok(None);
        };
        let address = address
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(address);
        let Ok(address) = address.parse::<IpAddr>() else {
            return Ok(None);
        };
        let max = if address.is_ipv4() { 32 } else { 128 };
        let prefix = prefix
            .parse::<u8>()
            .ok()
            .filter(|p| *p <= max && (prefix.len() == 1 || !prefix.starts_with('0')))
            .ok_or_else(|| format!("a prefix length is a number from 0 to {max}"))?;
        let net = match address {
            IpAddr::V4(ip) => Net::V4(u32::from(ip), prefix),
            IpAddr::V6(ip) => Net::V6(u128::from(ip), prefix),
        };
        if net.masked() != net {
            return Err("the address has bits set past the prefix length".to_owned());
        }
        Ok(Some(net))
    }

    fn masked(self) -> Net {
        match self {
            Net::V4(bits, p) => Net::V4(bits & mask32(p), p),
            Net::V6(bits, p) => Net::V6(bits & mask128(p), p),
        }
    }
}

fn mask32(prefix: u8) -> u32 {
    u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0)
}

fn mask128(prefix: u8) -> u128 {
    u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0)
}

/// A host pattern of an allow or deny list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostPattern {
    /// Exactly this domain (lowercase, no trailing dot).
    Exact(String),
    /// `*.example.com`: any name ending in `.example.com` (held with its leading dot),
    /// at any depth, but not `example.com` itself.
    Subdomains(String),
    /// This IP address (an IPv4-mapped IPv6 address is held as its IPv4 address).
    Ip(IpAddr),
    /// The addresses of this range.
    Net(Net),
    /// The hosts of a named class.
    Class(Class),
}

impl HostPattern {
    /// Parses a pattern: `*.` and a domain, an IPv4 address, an IPv6 address (with or
    /// without brackets), a range `ADDRESS/PREFIX`, a class `class:NAME` or a domain.
    pub(crate) fn parse(text: &str) -> Result<HostPattern, String> {
        let plain = |t: &str| {
            t.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_') || !c.is_ascii())
        };
        if let Some(name) = text.strip_prefix("class:") {
            return match Class::ALL.iter().find(|(n, _)| *n == name) {
                Some((_, class)) => Ok(HostPattern::Class(*class)),
                None => Err(format!(
                    "unknown class; the classes are {}",
                    Class::ALL
                        .iter()
                        .map(|(n, _)| format!("\"class:{n}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            };
        }
        if let Some(net) = Net::parse(text)? {
            return Ok(HostPattern::Net(net));
        }
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
            return Ok(HostPattern::Ip(unmapped(ip)));
        }
        match domain_of(text).filter(|_| plain(text)) {
            Some(HostName::Domain(domain)) => Ok(HostPattern::Exact(domain)),
            Some(HostName::Ip(ip)) => Ok(HostPattern::Ip(ip)),
            None => Err("not a host name or IP address".to_owned()),
        }
    }
}

/// `ip`, or the IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) holds.
fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    }
}

/// A compiled host list: each pattern's text, and maps from what a host is to the
/// position of the first pattern that matches it.
#[derive(Debug, Default)]
pub(crate) struct HostList {
    texts: Vec<String>,
    exact: HashMap<String, usize>,
    /// Wildcard suffixes with their leading dot.
    suffixes: HashMap<String, usize>,
    /// By prefix length (sorted), the masked addresses.
    v4: Vec<(u8, HashMap<u32, usize>)>,
    v6: Vec<(u8, HashMap<u128, usize>)>,
}

impl HostList {
    /// Compiles `patterns` (each with its text as written), in their order.
    pub(crate) fn new(patterns: Vec<(HostPattern, String)>) -> HostList {
        fn first<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: K, at: usize) {
            if let Entry::Vacant(entry) = map.entry(key) {
                entry.insert(at);
            }
        }
        fn net<K: std::hash::Hash + Eq>(
            nets: &mut Vec<(u8, HashMap<K, usize>)>,
            prefix: u8,
            key: K,
            at: usize,
        ) {
            let i = match nets.binary_search_by_key(&prefix, |(p, _)| *p) {
                Ok(i) => i,
                Err(i) => {
                    nets.insert(i, (prefix, HashMap::new()));
                    i
                }
            };
            first(&mut nets[i].1, key, at);
        }
        let mut list = HostList::default();
        for (at, (pattern, text)) in patterns.into_iter().enumerate() {
            list.texts.push(text);
            let expanded = match pattern {
                HostPattern::Class(class) => class.patterns(),
                other => vec![other],
            };
            for pattern in expanded {
                match pattern {
                    HostPattern::Exact(name) => first(&mut list.exact, name, at),
                    HostPattern::Subdomains(suffix) => first(&mut list.suffixes, suffix, at),
                    HostPattern::Ip(IpAddr::V4(ip)) => net(&mut list.v4, 32, u32::from(ip), at),
                    HostPattern::Ip(IpAddr::V6(ip)) => net(&mut list.v6, 128, u128::from(ip), at),
                    HostPattern::Net(Net::V4(bits, p)) => net(&mut list.v4, p, bits, at),
                    HostPattern::Net(Net::V6(bits, p)) => net(&mut list.v6, p, bits, at),
                    HostPattern::Class(_) => {}
                }
            }
        }
        list
    }

    /// The text of the first pattern (in the order given) that matches `host`.
    pub(crate) fn first_match(&self, host: &HostName) -> Option<&str> {
        let at = match host {
            HostName::Domain(name) => {
                let exact = self.exact.get(name).copied();
                let suffix = name
                    .match_indices('.')
                    .filter(|(i, _)| *i > 0)
                    .filter_map(|(i, _)| self.suffixes.get(&name[i..]).copied())
                    .min();
                exact.into_iter().chain(suffix).min()
            }
            HostName::Ip(IpAddr::V4(ip)) => {
                let bits = u32::from(*ip);
                let v4 = self
                    .v4
                    .iter()
                    .filter_map(|(p, map)| map.get(&(bits & mask32(*p))).copied())
                    .min();
                // Ranges written in IPv6 that hold the mapped address match too.
                let mapped = u128::from(ip.to_ipv6_mapped());
                let v6 = self
                    .v6
                    .iter()
                    .filter_map(|(p, map)| map.get(&(mapped & mask128(*p))).copied())
                    .min();
                v4.into_iter().chain(v6).min()
            }
            HostName::Ip(IpAddr::V6(ip)) => {
                let bits = u128::from(*ip);
                self.v6
                    .iter()
                    .filter_map(|(p, map)| map.get(&(bits & mask128(*p))).copied())
                    .min()
            }
        }?;
        Some(self.texts[at].as_str())
    }
}

/// The host of a URL, as compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostName {
    /// A domain name: lowercase, ASCII, without a trailing dot.
    Domain(String),
    /// An IP address; never an IPv4-mapped IPv6 address.
    Ip(IpAddr),
}

impl HostName {
    /// The host as reports write it: the domain, an IPv4 address, or an IPv6
    /// address in brackets.
    pub(crate) fn shown(&self) -> String {
        match self {
            HostName::Domain(name) => name.clone(),
            HostName::Ip(IpAddr::V4(ip)) => ip.to_string(),
            HostName::Ip(IpAddr::V6(ip)) => format!("[{ip}]"),
        }
    }

    fn of(host: Host<&str>) -> HostName {
        match host {
            Host::Domain(domain) => HostName::Domain(domain_name(domain)),
            Host::Ipv4(ip) => HostName::Ip(IpAddr::V4(ip)),
            Host::Ipv6(ip) => HostName::Ip(unmapped(IpAddr::V6(ip))),
        }
    }
}

fn domain_of(text: &str) -> Option<HostName> {
    if text.is_empty() || text.contains(['/', '@', ':', '?', '#']) {
        return None;
    }
    normalised_host(text)
}

/// `text`, a host as written in a URL, through the WHATWG host parser (brackets,
/// percent-escapes, IDNA, IPv4 notations) and normalised; `None` if it refuses it.
fn normalised_host(text: &str) -> Option<HostName> {
    let host = Host::parse(text).ok()?;
    Some(match &host {
        Host::Domain(domain) => HostName::of(Host::Domain(domain.as_str())),
        Host::Ipv4(ip) => HostName::of(Host::Ipv4(*ip)),
        Host::Ipv6(ip) => HostName::of(Host::Ipv6(*ip)),
    })
}

fn domain_name(domain: &str) -> String {
    let lower = domain.to_ascii_lowercase();
    match lower.strip_suffix('.') {
        Some(stripped) if !stripped.is_empty() => stripped.to_owned(),
        _ => lower,
    }
}

/// A reading of a URL's host: none, a normalised host, or a text that cannot be
/// normalised.
type Reading = Option<Result<HostName, String>>;

fn shown_reading(reading: &Reading) -> String {
    match reading {
        None => String::new(),
        Some(Ok(host)) => host.shown(),
        Some(Err(text)) => text.clone(),
    }
}

/// The host of `url` as the WHATWG parser reads it, normalised.
fn whatwg_host(url: &Url) -> Reading {
    match url.host()? {
        Host::Domain("") => None,
        // The host of a special scheme (http, https, ws, wss, ftp, file) is parsed
        // already; that of another scheme is opaque, percent-encoded text.
        Host::Domain(domain) if url.is_special() => Some(Ok(HostName::of(Host::Domain(domain)))),
        Host::Domain(opaque) => Some(normalised_host(opaque).ok_or_else(|| opaque.to_owned())),
        Host::Ipv4(ip) => Some(Ok(HostName::of(Host::Ipv4(ip)))),
        Host::Ipv6(ip) => Some(Ok(HostName::of(Host::Ipv6(ip)))),
    }
}

/// The host of `raw` as RFC 3986 reads it, normalised as the WHATWG host parser
/// does; `Err(())` when the authority has more than one `@`.
fn rfc_host(raw: &str) -> Result<Reading, ()> {
    let text = raw.trim_matches(|c: char| c <= ' ');
    let Some((_, rest)) = text.split_once(':') else {
        return Ok(None);
    };
    let Some(rest) = rest.strip_prefix("//") else {
        return Ok(None);
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = match authority.rsplit_once('@') {
        Some((userinfo, _)) if userinfo.contains('@') => return Err(()),
        Some((_, host_port)) => host_port,
        None => authority,
    };
    let host = if host_port.starts_with('[') {
        match host_port.find(']') {
            Some(end) => &host_port[..=end],
            None => host_port,
        }
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    if host.is_empty() {
        return Ok(None);
    }
    Ok(Some(normalised_host(host).ok_or_else(|| host.to_owned())))
}

/// What a URL rule says about one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UrlVerdict {
    /// Allowed.
    Allowed,
    /// The text is not an absolute URL.
    Invalid,
    /// The scheme (lowercase) is not in the rule's list.
    Scheme(String),
    /// The URL has no host, and the rule has host lists.
    NoHost,
    /// The host (as written, percent-encoded) cannot be normalised, and the rule has
    /// host lists.
    Unreadable(String),
    /// The WHATWG and RFC 3986 readings of the host differ (each as shown, empty for
    /// no host), and the rule has host lists; `None` for the RFC 3986 reading when the
    /// authority has more than one `@`.
    Ambiguous(String, Option<String>),
    /// The host and the first deny pattern it matches.
    Denied(String, String),
    /// The host, which matches no allow pattern.
    NotAllowed(String),
}

/// A URL rule: the allowed schemes, optional allow hosts, deny hosts.
#[derive(Debug)]
pub(crate) struct UrlRule {
    /// Allowed schemes, lowercase.
    pub schemes: Vec<String>,
    /// Hosts of which one must match, if given.
    pub allow: Option<HostList>,
    /// Hosts of which none may match; they win over `allow`.
    pub deny: HostList,
}

impl UrlRule {
    /// The verdict on the URL argument `raw`.
    pub(crate) fn check(&self, raw: &str) -> UrlVerdict {
        let Ok(url) = Url::parse(raw) else {
            return UrlVerdict::Invalid;
        };
        let scheme = url.scheme().to_ascii_lowercase();
        if !self.schemes.contains(&scheme) {
            return UrlVerdict::Scheme(scheme);
        }
        if self.allow.is_none() && self.deny.texts.is_empty() {
            return UrlVerdict::Allowed;
        }
        let whatwg = whatwg_host(&url);
        if let Some(Err(text)) = &whatwg {
            return UrlVerdict::Unreadable(text.clone());
        }
        match rfc_host(raw) {
            Ok(rfc) if rfc == whatwg => {}
            Ok(rfc) => {
                return UrlVerdict::Ambiguous(shown_reading(&whatwg), Some(shown_reading(&rfc)));
            }
            Err(()) => return UrlVerdict::Ambiguous(shown_reading(&whatwg), None),
        }
        let Some(Ok(host)) = whatwg else {
            return UrlVerdict::NoHost;
        };
        if let Some(text) = self.deny.first_match(&host) {
            return UrlVerdict::Denied(host.shown(), text.to_owned());
        }
        match &self.allow {
            Some(allow) if allow.first_match(&host).is_none() => {
                UrlVerdict::NotAllowed(host.shown())
            }
            _ => UrlVerdict::Allowed,
        }
    }
}
#[cfg(test)]
mod tests {
    use super::{HostList, HostPattern, UrlRule, UrlVerdict};

    fn patterns(list: &[&str]) -> HostList {
        HostList::new(
            list.iter()
                .map(|t| (HostPattern::parse(t).unwrap(), (*t).to_owned()))
                .collect(),
        )
    }

    fn rule(allow: &[&str], deny: &[&str]) -> UrlRule {
        UrlRule {
            schemes: vec!["http".to_owned(), "https".to_owned()],
            allow: Some(patterns(allow)),
            deny: patterns(deny),
        }
    }

    fn deny_rule(schemes: &[&str], deny: &[&str]) -> UrlRule {
        UrlRule {
            schemes: schemes.iter().map(|s| (*s).to_owned()).collect(),
            allow: None,
            deny: patterns(deny),
        }
    }

    fn denied(host: &str, pattern: &str) -> UrlVerdict {
        UrlVerdict::Denied(host.to_owned(), pattern.to_owned())
    }

    /// Every scheme's host is normalised as an http host is: opaque hosts too.
    #[test]
    fn hosts_of_every_scheme_are_normalised() {
        let rule = deny_rule(
            &["sftp", "gopher", "ssh", "http"],
            &["127.0.0.1", "169.254.169.254", "evil.com"],
        );
        assert_eq!(
            rule.check("sftp://127.0.0.1/"),
            denied("127.0.0.1", "127.0.0.1")
        );
        assert_eq!(
            rule.check("gopher://169.254.169.254/"),
            denied("169.254.169.254", "169.254.169.254")
        );
        assert_eq!(
            rule.check("sftp://ev%69l.com/"),
            denied("evil.com", "evil.com")
        );
        assert_eq!(
            rule.check("sftp://0x7f.1/"),
            denied("127.0.0.1", "127.0.0.1")
        );
        assert_eq!(
            rule.check("sftp://2130706433/"),
            denied("127.0.0.1", "127.0.0.1")
        );
        assert_eq!(
            rule.check("sftp://0177.0.0.1/"),
            denied("127.0.0.1", "127.0.0.1")
        );
        assert_eq!(
            rule.check("ssh://u@EVIL.com.:22/"),
            denied("evil.com", "evil.com")
        );
        assert_eq!(
            rule.check("sftp://[::ffff:127.0.0.1]/"),
            denied("127.0.0.1", "127.0.0.1")
        );
        assert_eq!(rule.check("sftp://good.example/"), UrlVerdict::Allowed);
        // What the host parser refuses cannot be judged.
        assert_eq!(
            rule.check("sftp://ev%00il.com/"),
            UrlVerdict::Unreadable("ev%00il.com".to_owned())
        );
    }

    /// Where the WHATWG and RFC 3986 readings of the host differ, the URL is a
    /// violation whichever would be allowed.
    #[test]
    fn hosts_parsers_disagree_on_are_ambiguous() {
        let rule = rule(&["docs.example.com"], &[]);
        let ambiguous = |w: &str, r: &str| UrlVerdict::Ambiguous(w.to_owned(), Some(r.to_owned()));
        assert_eq!(
            rule.check("http://docs.example.com\\@evil.com:18080/"),
            ambiguous("docs.example.com", "evil.com")
        );
        assert_eq!(
            rule.check("http://evil.com\\@docs.example.com/"),
            ambiguous("evil.com", "docs.example.com")
        );
        assert_eq!(
            rule.check("http://a@b@docs.example.com/"),
            UrlVerdict::Ambiguous("docs.example.com".to_owned(), None)
        );
        assert_eq!(
            rule.check("http:docs.example.com/"),
            ambiguous("docs.example.com", "")
        );
        assert_eq!(
            rule.check("http://docs.exa\tmple.com/"),
            ambiguous("docs.example.com", "docs.exa\tmple.com")
        );
        assert_eq!(
            rule.check(" https://u:p@docs.example.com:8443/a\\b?c@d#e@f "),
            UrlVerdict::Allowed
        );
        assert_eq!(
            rule.check("https://[::1]:80/"),
            UrlVerdict::NotAllowed("[::1]".to_owned())
        );
    }

    /// Addresses: mapped IPv6 as IPv4, ranges, classes.
    #[test]
    fn ranges_and_classes() {
        let rule = deny_rule(
            &["http"],
            &[
                "10.0.0.0/8",
                "fd00::/8",
                "class:loopback",
                "class:unspecified",
                "class:link-local",
            ],
        );
        assert_eq!(
            rule.check("http://10.1.2.3/"),
            denied("10.1.2.3", "10.0.0.0/8")
        );
        assert_eq!(
            rule.check("http://[fd12::1]/"),
            denied("[fd12::1]", "fd00::/8")
        );
        assert_eq!(
            rule.check("http://127.0.0.2/"),
            denied("127.0.0.2", "class:loopback")
        );
        assert_eq!(
            rule.check("http://[::1]/"),
            denied("[::1]", "class:loopback")
        );
        assert_eq!(
            rule.check("http://LocalHost./"),
            denied("localhost", "class:loopback")
        );
        assert_eq!(
            rule.check("http://a.localhost/"),
            denied("a.localhost", "class:loopback")
        );
        assert_eq!(
            rule.check("http://0.0.0.0/"),
            denied("0.0.0.0", "class:unspecified")
        );
        assert_eq!(
            rule.check("http://0/"),
            denied("0.0.0.0", "class:unspecified")
        );
        assert_eq!(
            rule.check("http://[::]/"),
            denied("[::]", "class:unspecified")
        );
        assert_eq!(
            rule.check("http://[::ffff:a9fe:a9fe]/"),
            denied("169.254.169.254", "class:link-local")
        );
        assert_eq!(
            rule.check("http://[::ffff:10.0.0.1]/"),
            denied("10.0.0.1", "10.0.0.0/8")
        );
        assert_eq!(rule.check("http://11.0.0.1/"), UrlVerdict::Allowed);
        assert_eq!(rule.check("http://[fe00::1]/"), UrlVerdict::Allowed);
        // The first pattern in the list's order is named.
        let both = deny_rule(&["http"], &["class:private", "10.0.0.1", "::ffff:0:0/96"]);
        assert_eq!(
            both.check("http://10.0.0.1/"),
            denied("10.0.0.1", "class:private")
        );
        assert_eq!(
            both.check("http://8.8.8.8/"),
            denied("8.8.8.8", "::ffff:0:0/96")
        );
        let mapped = deny_rule(&["http"], &["::ffff:127.0.0.1"]);
        assert_eq!(
            mapped.check("http://127.0.0.1/"),
            denied("127.0.0.1", "::ffff:127.0.0.1")
        );
    }

    #[test]
    fn ranges_and_classes_are_checked() {
        for bad in [
            "10.0.0.1/8",
            "10.0.0.0/33",
            "10.0.0.0/",
            "10.0.0.0/08",
            "a/8",
            "class:lan",
            "fd00::/129",
        ] {
            assert!(HostPattern::parse(bad).is_err(), "{bad}");
        }
        assert!(HostPattern::parse("[fd00::]/8").is_ok());
        assert!(HostPattern::parse("0.0.0.0/0").is_ok());
        assert!(HostPattern::parse("::/0").is_ok());
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
