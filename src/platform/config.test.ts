import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, trustProxyVar } from './config.ts';

describe('ADMIT_TRUST_PROXY', () => {
  it('is unset, a hop count, or proxy addresses and CIDRs; never "trust everything"', () => {
    expect(trustProxyVar(undefined)).toBe(false);
    expect(trustProxyVar('')).toBe(false);
    expect(trustProxyVar('0')).toBe(false);
    expect(trustProxyVar('1')).toBe(1);
    expect(trustProxyVar('2')).toBe(2);
    expect(trustProxyVar('10.0.0.1, 10.1.0.0/16,::1,fd00::/8')).toEqual(['10.0.0.1', '10.1.0.0/16', '::1', 'fd00::/8']);
  });

  it('stops the process on anything else', () => {
    for (const bad of [
      'true',
      'yes',
      '-1',
      '21',
      '10.0.0.1/33',
      '10.0.0.300',
      'proxy.local',
      '10.0.0.0/8/1',
      '::1/129',
      '1.2.3.4,',
    ]) {
      expect(() => trustProxyVar(bad), bad).toThrow(ConfigError);
    }
  });
});

describe('/_mail', () => {
  it('is on for a loopback listener outside production without SMTP', () => {
    expect(loadConfig({}).devMail).toBe(true);
    expect(loadConfig({ HOST: 'localhost' }).devMail).toBe(true);
    expect(loadConfig({ HOST: '::1' }).devMail).toBe(true);
  });

  it('is off on a public listener, in production, or with SMTP, unless ADMIT_DEV_MAIL=1', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }).devMail).toBe(false);
    expect(loadConfig({ HOST: '::' }).devMail).toBe(false);
    expect(loadConfig({ HOST: '192.168.1.20' }).devMail).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production' }).devMail).toBe(false);
    expect(loadConfig({ SMTP_URL: 'smtp://localhost:2525' }).devMail).toBe(false);
    expect(loadConfig({ HOST: '0.0.0.0', ADMIT_DEV_MAIL: '1' }).devMail).toBe(true);
    expect(loadConfig({ ADMIT_DEV_MAIL: '0' }).devMail).toBe(false);
    expect(() => loadConfig({ ADMIT_DEV_MAIL: 'yes' })).toThrow(ConfigError);
  });
});
