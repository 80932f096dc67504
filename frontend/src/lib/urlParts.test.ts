import { describe, expect, it } from 'vitest'
import { splitUrl } from './urlParts'

describe('splitUrl', () => {
  it('picks out the host of a plain URL and keeps the rest as sent', () => {
    const p = splitUrl('https://auth.example.com:8443/oauth/start?state=abc#x')
    expect([p.before, p.host, p.after]).toEqual(['https://', 'auth.example.com', ':8443/oauth/start?state=abc#x'])
    expect(p.before + p.host + p.after).toBe('https://auth.example.com:8443/oauth/start?state=abc#x')
    expect(p).toMatchObject({ punycode: false, userinfo: false, web: true, valid: true, asciiHost: 'auth.example.com' })
  })

  it('warns for punycode hosts, and for non-ASCII hosts the browser turns into punycode', () => {
    const p = splitUrl('https://xn--pple-43d.com/login')
    expect(p.host).toBe('xn--pple-43d.com')
    expect(p.punycode).toBe(true)
    const sub = splitUrl('https://login.XN--80ak6aa92e.com/')
    expect(sub.punycode).toBe(true)
    const idn = splitUrl('https://аpple.com/') // Cyrillic а
    expect(idn.host).toBe('аpple.com')
    expect(idn.punycode).toBe(true)
    expect(idn.asciiHost.startsWith('xn--')).toBe(true)
    expect(splitUrl('https://examplexn--.com/').punycode).toBe(false)
  })

  it('highlights the real host after a user@ part', () => {
    const p = splitUrl('https://bank.example.com@evil.example/pay')
    expect(p.before).toBe('https://bank.example.com@')
    expect(p.host).toBe('evil.example')
    expect(p.userinfo).toBe(true)
  })

  it('handles IPv6 hosts, other schemes and junk', () => {
    expect(splitUrl('http://[::1]:8080/x').host).toBe('[::1]')
    expect(splitUrl('javascript:alert(1)')).toMatchObject({ host: '', web: false })
    expect(splitUrl('ftp://files.example.com/a')).toMatchObject({ host: 'files.example.com', web: false })
    expect(splitUrl('not a url')).toMatchObject({ host: '', after: 'not a url', web: false, valid: false })
  })
})
