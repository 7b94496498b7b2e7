# One image for every Crux service; the compose file picks the command.
FROM node:20-bookworm-slim
WORKDIR /app
RUN npm i -g pnpm@10.34.8
COPY . .
RUN pnpm install --frozen-lockfile
ENV NODE_ENV=production
# pnpm is PID 1 and passes docker stop's SIGTERM straight to the node process
# (scripts run in pnpm's shell emulator, see pnpm-workspace.yaml), which shuts
# down cleanly; with a plain `sh -c` in between the signal never arrived.
CMD ["pnpm", "start"]
