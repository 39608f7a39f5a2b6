// An `npm install` of an AWS SDK package the runtime provides, run by a function into /tmp, answered at once
// without npm (imported by node_worker.mjs).
//
// aws-cdk-lib's AwsCustomResource handler, with installLatestAwsSdk true (its default), installs the newest
// client of the service it calls before calling it: execSync(`NPM_CONFIG_UPDATE_NOTIFIER=false HOME=/tmp npm
// install "<package>" --omit=dev --no-package-lock --no-save --prefix /tmp`) (custom-resource-handlers'
// aws-custom-resource-handler); when that throws it logs "Failed to install latest AWS SDK v3. Falling back to
// pre-installed version. Error: ..." and requires the package the runtime provides. On Lambda, /tmp is the
// function's own and the network is there. On Eddy, /tmp is the machine's, shared by every function and process,
// and the machine may have no network (npm then retries for minutes, past the handler's timeout). So where the
// package is one the function would find without the install (Eddy's runtime provides it, or the function bundles
// it), that command throws at once, saying so, and the handler falls back to it. A package the function would not
// find is installed as asked (it needs npm and the network, as on Lambda).

import childProcess from "node:child_process";
import path from "node:path";
import { createRequire, syncBuiltinESMExports } from "node:module";

const SDK_INSTALL = /\bnpm install "(@aws-sdk\/[a-z0-9-]+)" [^;&|]*--prefix \/tmp$/;

export function skipProvidedSdkInstalls(codeFolder) {
  const resolve = createRequire(path.join(codeFolder, "index.js")).resolve;
  const provided = (name) => {
    try {
      resolve(name);
      return true;
    } catch {
      return false;
    }
  };
  const { execSync } = childProcess;
  childProcess.execSync = (command, ...rest) => {
    const install = typeof command === "string" ? SDK_INSTALL.exec(command.trim()) : null;
    if (install && provided(install[1])) {
      throw new Error(
        `Eddy's Node.js runtime provides ${install[1]}: the run-time \`npm install\` into /tmp is skipped ` +
          "(AwsCustomResource's installLatestAwsSdk) and the runtime's version is used",
      );
    }
    return execSync(command, ...rest);
  };
  syncBuiltinESMExports(); // `import { execSync } from "node:child_process"` sees it too
}
