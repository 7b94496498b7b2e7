# One image for every Crux service; the compose file picks the command.
FROM node:20-bookworm-slim
WORKDIR /app
RUN npm i -g pnpm@10.34.8
COPY . .
RUN pnpm install --frozen-lockfile
ENV NODE_ENV=production
# Inside a container only 0.0.0.0 is reachable through a published port (127.0.0.1 is the container's
# own loopback), so the image says so explicitly. Outside a container, with auth off, services bind
# 127.0.0.1 unless CRUX_HOST is set: run `pnpm start` in this image with CRUX_AUTH=true, or publish
# its ports to 127.0.0.1 only (-p 127.0.0.1:8080:8080), since without keys anyone who reaches a
# port reads everything.
ENV CRUX_HOST=0.0.0.0
# pnpm is PID 1 and passes docker stop's SIGTERM straight to the node process
# (scripts run in pnpm's shell emulator, see pnpm-workspace.yaml), which shuts
# down cleanly; with a plain `sh -c` in between the signal never arrived.
CMD ["pnpm", "start"]
