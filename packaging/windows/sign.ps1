# Signs one Windows executable with signtool (release workflow only).
#   powershell -File packaging\windows\sign.ps1 <file>
# Reads the certificate from the environment:
#   PARLEY_PFX              path to the .pfx file (the workflow decodes the secret into it)
#   WIN_CERT_PASSWORD       its password
#   WIN_TIMESTAMP_URL       RFC 3161 timestamp server (default http://timestamp.digicert.com)
# NSIS runs it for the uninstaller and the installer (!uninstfinalize / !finalize
# in build\windows\installer\project.nsi when makensis gets -DPARLEY_SIGN_SCRIPT).
# Works in Windows PowerShell 5.1 and PowerShell 7.
param([Parameter(Mandatory = $true)][string]$File)
$ErrorActionPreference = 'Stop'

if (-not $env:PARLEY_PFX -or -not (Test-Path $env:PARLEY_PFX)) { throw 'PARLEY_PFX does not name a .pfx file' }
$timestamp = $env:WIN_TIMESTAMP_URL
if (-not $timestamp) { $timestamp = 'http://timestamp.digicert.com' }

# The newest signtool of the installed Windows SDKs.
$signtool = Get-ChildItem "${env:ProgramFiles(x86)}\Windows Kits\10\bin\*\x64\signtool.exe" -ErrorAction SilentlyContinue |
  Sort-Object { try { [version]$_.Directory.Parent.Name } catch { [version]'0.0' } } -Descending |
  Select-Object -First 1
if (-not $signtool) { throw 'signtool.exe not found (Windows SDK)' }

& $signtool.FullName sign /fd SHA256 /td SHA256 /tr $timestamp /d Parley `
  /f $env:PARLEY_PFX /p $env:WIN_CERT_PASSWORD $File
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
& $signtool.FullName verify /pa $File
exit $LASTEXITCODE
