// Listen to the live FEED of an actionkit server.
//
//   ACTIONKIT_URL=http://localhost:8000 ACTIONKIT_TOKEN=<access token> node feed.mjs
//
// The access token is a user's (from /v1/users/login or /register). The
// server checks it like an HTTP request, token version included: after a
// logout-all the socket is disconnected and the token refused.
import { io } from "socket.io-client";

const url = process.env.ACTIONKIT_URL ?? "http://localhost:8000";
const token = process.env.ACTIONKIT_TOKEN;

const socket = io(url, {
  auth: { token },            // read by the server on connection
  transports: ["websocket"],  // or leave out to start with long polling
  reconnection: false,        // a real app reconnects with a fresh token
});

socket.on("connect", () => {
  // Ask to join FEED; the acknowledgement says whether it worked.
  socket.emit("join", "FEED", (ack) => {
    console.log(JSON.stringify({ joined: "FEED", ack }));
  });
});

socket.on("POST_PUBLISHED", (post) => {
  // { postId, title, publishedAt }
  console.log(JSON.stringify({ event: "POST_PUBLISHED", post }));
});

socket.on("connect_error", (err) => {
  // err.message is "UNAUTHORIZED" for a bad, expired or revoked token.
  console.error(JSON.stringify({ error: err.message }));
  process.exit(1);
});

socket.on("disconnect", (reason) => {
  console.log(JSON.stringify({ disconnected: reason }));
  process.exit(0);
});
