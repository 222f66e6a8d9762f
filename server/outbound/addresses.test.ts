import { describe, expect, it } from 'vitest';
import { canonicalHost, isPublicAddress } from './addresses.ts';

describe('addresses outbound calls may reach', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.5',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.100.100.200',
    '192.0.0.192',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    'fd00:ec2::254',
    'fe80::1',
    'ff02::1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    'not-an-address',
    'localhost',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('a host as a resolver reads it', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0X7F000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['167772161', '10.0.0.1'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['1572395042', '93.184.216.34'],
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
  ])('reads %s as the address %s', (host, address) => {
    expect(canonicalHost(host)).toBe(address);
    expect(isPublicAddress(address)).toBe(address === '93.184.216.34');
  });

  it.each([
    ['ftp.shop.example', 'ftp.shop.example'],
    ['FTP.Shop.Example.', 'ftp.shop.example.'],
    ['localhost', 'localhost'],
    ['1x.example', '1x.example'],
  ])('reads %s as the name %s', (host, name) => {
    expect(canonicalHost(host)).toBe(name);
  });

  it.each(['999999999999', '08.1.1.1', '1.2.3.4.5', 'a.0x1', '256.256.256.256', '[1.2.3.4]', 'x/y', 'a@127.0.0.1', 'b:21', ''])(
    'reads %j as neither an address nor a name',
    (host) => {
      expect(canonicalHost(host)).toBeUndefined();
    },
  );
});
