// A URL from a server (an MCP URL-mode elicitation) taken apart for showing
// (SPEC §6): the full text as sent, with its host picked out so the card can
// highlight the domain the user would really go to (after any `user@` part),
// and a warning when that host is an internationalized name (punycode
// `xn--`, or non-ASCII letters a browser turns into punycode), which can
// imitate another site's name.

export interface UrlParts {
  /** Everything before the host: the scheme, `//` and any `user:pass@`. */
  before: string
  /** The host as written in the URL (without the port). */
  host: string
  /** The port, path, query and fragment. */
  after: string
  /** The host in ASCII, as the browser will resolve it (punycode for IDNs). */
  asciiHost: string
  /** The host is or becomes punycode. */
  punycode: boolean
  /** It has user info before the host (`https://bank.com@evil.example`). */
  userinfo: boolean
  /** http: or https: (the only schemes "Open" opens, with mailto:). */
  web: boolean
  /** The URL parses. */
  valid: boolean
}

const SPLIT = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*@)?(\[[^\]]*\]|[^/?#:]*)(.*)$/is

export function splitUrl(url: string): UrlParts {
  let parsed: URL | null = null
  try {
    parsed = new URL(url)
  } catch {
    parsed = null
  }
  const m = SPLIT.exec(url)
  if (!m) {
    return { before: '', host: '', after: url, asciiHost: parsed?.hostname ?? '', punycode: false, userinfo: false, web: false, valid: !!parsed }
  }
  const [, scheme, user = '', host = '', after = ''] = m
  const asciiHost = parsed?.hostname ?? host
  const punycode = /(^|\.)xn--/i.test(host) || /(^|\.)xn--/i.test(asciiHost) || /[^\x00-\x7f]/.test(host)
  return {
    before: scheme! + user,
    host,
    after,
    asciiHost,
    punycode,
    userinfo: user !== '',
    web: !!parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:'),
    valid: !!parsed,
  }
}
