#!/usr/bin/env node
// A 358 Arena bot in JavaScript: plays a uniformly random legal action at every decision.
//
//   ARENA_TOKEN=TOKEN node bot.js --arena HOST:PORT [--name NAME] [--seed N]
//               [--tls-ca CA.pem [--tls-cert CERT.pem --tls-key KEY.pem]]
//
// (--arena / --token default to $ARENA_ADDRESS / $ARENA_TOKEN; the arena passes the token in
// the environment only, since a command line is visible to every local user. The --tls-* files
// default to $ARENA_TLS_CA / $ARENA_TLS_CERT / $ARENA_TLS_KEY; with a CA the connection uses
// TLS, with a certificate and key too, mutual TLS.) It loads the protocol from
// proto/threefiveeight/v1/arena.proto at run time (no generated code), opens the Play stream,
// registers, answers every DecisionRequest with one of view.legal_actions (action text such as
// "AS", "trump:H", "give:2:10D"), and exits 0 when the arena closes the stream or on
// SIGTERM/SIGINT; 3 when the registration is rejected (the arena then ends the stream with a
// matching gRPC status, e.g. UNAUTHENTICATED), 1 on a connection error, 2 on bad arguments.
// Logs go to stderr.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

// the .proto shipped in the bot's own proto/ (a league submission carries it: `arena proto`),
// else as installed with the arena package (arena/protocol/proto: beside sample_bots/ in a
// checkout and in site-packages alike, and visible inside the sandbox), else the checkout's
const PROTO_ROOT = [
  path.resolve(__dirname, 'proto'),
  path.resolve(__dirname, '..', '..', 'arena', 'protocol', 'proto'),
  path.resolve(__dirname, '..', '..', 'proto'),
].find((dir) => fs.existsSync(path.join(dir, 'threefiveeight', 'v1', 'arena.proto')));
const PROTO_FILE = 'threefiveeight/v1/arena.proto';
const PROTOCOL_VERSION = '1';

function log(...parts) {
  console.error(new Date().toISOString(), 'js-bot:', ...parts);
}

function usage(message) {
  console.error(`error: ${message}\n` +
    'usage: node bot.js --arena HOST:PORT|unix:PATH --token TOKEN [--name NAME] [--seed N] ' +
    '[--tls-ca CA.pem [--tls-cert CERT.pem --tls-key KEY.pem]]');
  process.exit(2);
}

function parseArgs(argv) {
  const args = {
    arena: process.env.ARENA_ADDRESS, token: process.env.ARENA_TOKEN, name: 'js-random',
    seed: null, 'tls-ca': process.env.ARENA_TLS_CA, 'tls-cert': process.env.ARENA_TLS_CERT,
    'tls-key': process.env.ARENA_TLS_KEY,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const key = flag.replace(/^--/, '');
    if (!flag.startsWith('--') || !(key in args)) usage(`unknown argument ${argv[i]}`);
    const value = inline !== undefined ? inline : argv[++i];
    if (value === undefined) usage(`${flag} needs a value`);
    args[key] = value;
  }
  if (!args.arena) {
    usage('the arena address is required: --arena HOST:PORT or unix:PATH (or ARENA_ADDRESS)');
  }
  if (!args.token) usage('the token is required: --token TOKEN (or ARENA_TOKEN)');
  if (!args['tls-cert'] !== !args['tls-key']) usage('--tls-cert and --tls-key go together');
  if (args['tls-cert'] && !args['tls-ca']) usage('--tls-cert needs --tls-ca');
  return args;
}

// Plaintext without --tls-ca; else TLS verifying the arena with that CA (mutual TLS with a
// client certificate and key).
function credentials(args) {
  if (!args['tls-ca']) return grpc.credentials.createInsecure();
  const read = (flag) => {
    try {
      return fs.readFileSync(args[flag]);
    } catch (err) {
      return usage(`--${flag} ${args[flag]}: ${err.message}`);
    }
  };
  const ca = read('tls-ca');
  return args['tls-cert']
    ? grpc.credentials.createSsl(ca, read('tls-key'), read('tls-cert'))
    : grpc.credentials.createSsl(ca);
}

// mulberry32: a small seeded PRNG, so --seed makes the bot's choices reproducible.
function makeRng(seed) {
  if (seed === null) return Math.random;
  let a = Number(seed) >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const rng = makeRng(args.seed);
  const definition = protoLoader.loadSync(PROTO_FILE, {
    includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, defaults: true,
    oneofs: true,
  });
  const v1 = grpc.loadPackageDefinition(definition).threefiveeight.v1;
  const client = new v1.ArenaService(args.arena, credentials(args));
  let stopping = false;
  let call = null;
  const stop = (signal) => {
    log(`received ${signal}: leaving`);
    stopping = true;
    if (call) call.cancel();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // an arena too busy to take a registration answers TRY_AGAIN_LATER: register again on a
  // new stream after a pause (0.1 s, doubling up to 2 s), for up to a minute
  const giveUpAt = Date.now() + 60000;
  const attempt = (pause) => {
    call = client.Play();
    let exitCode = 0;
    let retry = false;
    call.write({
      register: {
        name: args.name, version: '1.0', protocol_version: PROTOCOL_VERSION, token: args.token,
        client: `js-bot/grpc-js-${require('@grpc/grpc-js/package.json').version}`,
      },
    });
    call.on('data', (msg) => {
      switch (msg.kind) {
        case 'register':
          if (msg.register.accepted) {
            log(`registered as ${msg.register.arena_name}`);
          } else if (msg.register.reason === 'REGISTER_REJECT_REASON_TRY_AGAIN_LATER' &&
                     Date.now() + pause < giveUpAt) {
            log(`the arena is busy (${msg.register.detail}): registering again`);
            retry = true;
          } else {
            log(`registration rejected (${msg.register.reason}): ${msg.register.detail}`);
            exitCode = 3;
          }
          break;
        case 'match_start':
          log(`match ${msg.match_start.match_id} starts: ${msg.match_start.rules.preset}, ` +
              `seat ${msg.match_start.seat}`);
          break;
        case 'decision': {
          const legal = msg.decision.view.legal_actions;
          const action = legal[Math.floor(rng() * legal.length)];
          call.write({ decision: { request_id: msg.decision.request_id, action } });
          break;
        }
        case 'rejection':
          log(`request ${msg.rejection.request_id} rejected (${msg.rejection.reason}): ` +
              msg.rejection.detail);
          break;
        case 'match_end':
          log(`match ${msg.match_end.match_id} ended (${msg.match_end.reason}): ` +
              `places ${msg.match_end.placings.join(' ')}`);
          break;
        case 'goodbye':
          log(`arena says goodbye: ${msg.goodbye.reason}`);
          break;
        default:
          break; // a kind from a newer protocol: ignore
      }
    });
    let finished = false;
    const finish = () => {      // once per stream: grpc-js may report both 'end' and 'error'
      if (finished) return;
      finished = true;
      if (retry && !stopping) {
        setTimeout(() => attempt(Math.min(pause * 2, 2000)), pause);
      } else {
        process.exit(exitCode);
      }
    };
    call.on('end', () => {
      call.end();
      finish();
    });
    call.on('error', (err) => {
      // after a rejected registration the stream ends with a matching status
      if (stopping || retry || exitCode === 3 || err.code === grpc.status.CANCELLED) {
        finish();
        return;
      }
      log(`connection to the arena lost: ${err.message}`);
      process.exit(1);
    });
  };
  attempt(100);
}

main();
