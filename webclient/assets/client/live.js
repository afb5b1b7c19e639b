// actionkit web client: socket.io with the current access token.

import { io } from "./socket.io.esm.min.js";

/** How long a join or leave waits for the server's acknowledgement. */
const ACK_TIMEOUT_MS = 5_000;

/** How long to wait before asking again for a join that timed out. */
const JOIN_RETRY_MS = 1_000;

/** The first and the longest wait before connecting again after the server
 * refused a handshake for a reason of its own (SERVICE_UNAVAILABLE while
 * its database is down, say): socket.io does not retry those by itself. */
const REFUSED_RETRY_MIN_MS = 1_000;
const REFUSED_RETRY_MAX_MS = 15_000;

/**
 * LiveSocket is a socket.io connection authenticated with the client's
 * access token. Each (re)connection sends the newest token, and the rooms
 * are joined again after each one. When the server refuses the token
 * (connect_error UNAUTHORIZED) or ends the connection (the user's token
 * version changed), the token is refreshed once, through the client's
 * single-flight refresh, and the socket reconnects; if the session is over
 * it stays closed until the next login. A handshake the server refuses for
 * another reason (SERVICE_UNAVAILABLE, INTERNAL_SERVER_ERROR) is tried
 * again after a growing, jittered wait, and reported by a "refused" event
 * (detail: {error}). Every failed attempt is a "connecterror" event
 * (detail: {error, active}: active when socket.io retries it by itself).
 * It dispatches "status" events
 * (detail: {connected, transport}) and "joined" events (detail: {room, ack}).
 */
export class LiveSocket extends EventTarget {
  #client;
  #socket;
  #rooms = new Set();
  #used = null; // the token of the latest connection attempt
  #retried = false;
  #closed = false;
  #unlisten = [];
  #refusals = 0; // handshakes refused in a row, not for the token
  #retryTimer = null;

  /**
   * @param {import("./actionkit.js").ActionkitClient} client
   * @param {{rooms?: string[]} & object} [options] rooms to join, plus
   *   socket.io-client options (transports, ...); auth is set here.
   */
  constructor(client, { rooms = [], ...options } = {}) {
    super();
    this.#client = client;
    for (const room of rooms) this.#rooms.add(room);
    const opts = {
      // WebSocket first, long-polling only when it fails: no upgrade step
      // that a slow network (or server) can leave stuck on polling, and no
      // need for sticky sessions unless the fallback is taken.
      transports: ["websocket", "polling"],
      ...options,
      autoConnect: false,
      auth: (cb) => cb({ token: (this.#used = client.token) }),
    };
    const s = client.baseURL ? io(client.baseURL, opts) : io(opts);
    this.#socket = s;
    s.on("connect", () => {
      this.#retried = false;
      this.#refusals = 0;
      this.#status();
      s.io.engine?.once("upgrade", () => this.#status());
      for (const room of this.#rooms) this.#join(room);
    });
    s.on("disconnect", (reason) => {
      this.#status();
      if (reason === "io server disconnect") this.#recover();
    });
    s.on("connect_error", (err) => {
      this.dispatchEvent(new CustomEvent("connecterror", { detail: { error: err?.message ?? "", active: s.active } }));
      if (err?.message === "UNAUTHORIZED") this.#recover();
      // A refusal by the server's middleware ends the socket (it is no
      // longer active) and socket.io leaves it so: connect again later.
      else if (!s.active) {
        this.dispatchEvent(new CustomEvent("refused", { detail: { error: err?.message ?? "" } }));
        this.#retryRefused();
      }
      // Other errors (the network): socket.io retries by itself, with the
      // newest token.
    });
    this.#listen("token", () => {
      if (!s.connected && !s.active && !this.#closed) s.connect();
    });
    this.#listen("logout", () => s.disconnect());
    if (client.token) s.connect();
  }

  /** @returns {boolean} */
  get connected() { return this.#socket.connected; }
  /** @returns {string|null} "websocket" or "polling" while connected. */
  get transport() { return this.#socket.connected ? this.#socket.io.engine?.transport?.name ?? null : null; }
  /** @returns {import("./socket.io.esm.min.js").Socket} the socket.io socket itself. */
  get socket() { return this.#socket; }
  /** @returns {string[]} the rooms joined on each connection. */
  get rooms() { return [...this.#rooms]; }

  /**
   * Listens to a server event, such as POST_PUBLISHED.
   * @param {string} event
   * @param {(...args: any[]) => void} fn
   * @returns {this}
   */
  on(event, fn) {
    this.#socket.on(event, fn);
    return this;
  }

  /**
   * Stops listening to a server event.
   * @param {string} event
   * @param {(...args: any[]) => void} [fn]
   * @returns {this}
   */
  off(event, fn) {
    this.#socket.off(event, fn);
    return this;
  }

  /**
   * Joins room now (when connected) and after every reconnection.
   * @param {string} room such as "FEED".
   * @returns {Promise<{ok: boolean, error?: string}|null>} the server's
   *   acknowledgement, or null when not connected yet.
   */
  join(room) {
    this.#rooms.add(room);
    return this.#socket.connected ? this.#join(room) : Promise.resolve(null);
  }

  /**
   * Leaves room.
   * @param {string} room
   * @returns {Promise<{ok: boolean, error?: string}|null>}
   */
  leave(room) {
    this.#rooms.delete(room);
    return this.#socket.connected ? this.#ack("leave", room) : Promise.resolve(null);
  }

  /** Disconnects for good. */
  close() {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    for (const off of this.#unlisten) off();
    this.#socket.disconnect();
  }

  /** Joins room, asking again while the acknowledgement times out and the
   * socket is still connected and still wants the room. */
  async #join(room) {
    let ack = await this.#ack("join", room);
    while (ack?.error === "TIMEOUT" && this.#socket.connected && this.#rooms.has(room) && !this.#closed) {
      await new Promise((resolve) => setTimeout(resolve, JOIN_RETRY_MS));
      if (!this.#socket.connected) break; // the next connection joins again
      ack = await this.#ack("join", room);
    }
    this.dispatchEvent(new CustomEvent("joined", { detail: { room, ack } }));
    return ack;
  }

  #ack(cmd, room) {
    return this.#socket.timeout(ACK_TIMEOUT_MS).emitWithAck(cmd, room)
      .catch(() => ({ ok: false, error: "TIMEOUT" }));
  }

  /** Connects again after a growing, jittered wait, unless the socket is
   * closed, connected or connecting by then, or there is no token. */
  #retryRefused() {
    if (this.#closed || this.#retryTimer !== null) return;
    const base = Math.min(REFUSED_RETRY_MAX_MS, REFUSED_RETRY_MIN_MS * 2 ** this.#refusals++);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      const s = this.#socket;
      if (!this.#closed && !s.connected && !s.active && this.#client.token) s.connect();
    }, base / 2 + Math.random() * (base / 2));
  }

  /** Refreshes the refused token once and reconnects with the new one. */
  async #recover() {
    if (this.#retried || this.#closed) return;
    this.#retried = true;
    try {
      const token = await this.#client.refresh(this.#used);
      if (token && !this.#closed && !this.#socket.connected) this.#socket.connect();
    } catch {
      // The client reports failed refreshes; the next "token" event reconnects.
    }
  }

  #status() {
    this.dispatchEvent(new CustomEvent("status", { detail: { connected: this.connected, transport: this.transport } }));
  }

  #listen(type, fn) {
    this.#client.addEventListener(type, fn);
    this.#unlisten.push(() => this.#client.removeEventListener(type, fn));
  }
}
