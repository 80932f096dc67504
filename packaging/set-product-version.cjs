// Sets info.productVersion in a wails.json: node packaging/set-product-version.cjs FILE A.B.C
// Wails puts it in the Windows VERSIONINFO and manifest, the NSIS installer and
// the macOS Info.plist, which all want a numeric a.b.c (packaging/version.sh
// derives it from the git tag). scripts/package.sh runs it on its build copy,
// the release workflow on its checkout; the committed wails.json keeps the base version.
const fs = require("fs");
const [file, version] = process.argv.slice(2);
if (!file || !/^\d+\.\d+\.\d+$/.test(version || "")) {
  console.error("usage: set-product-version.cjs WAILS_JSON A.B.C");
  process.exit(2);
}
const project = JSON.parse(fs.readFileSync(file, "utf8"));
project.info = Object.assign({}, project.info, { productVersion: version });
fs.writeFileSync(file, JSON.stringify(project, null, 2) + "\n");
