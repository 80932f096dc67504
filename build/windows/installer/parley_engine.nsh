# Parley: the built-in engine (SPEC §12) in the Windows installer.
#
# parley.engineFiles puts llama.cpp's DLLs (from @node-llama-cpp/win-x64 or
# win-arm64, fetched into build\engine\<platform> by scripts/engine-libs.sh)
# beside Parley.exe, where backend/engine/libs looks for them.
#
# parley.vcRuntime makes sure the Visual C++ 2015-2022 runtime (x64) the
# DLLs import (MSVCP140, VCRUNTIME140, VCRUNTIME140_1) is there, the way
# wails.webview2runtime does for WebView2: detected by its registry key;
# when missing, Microsoft's redistributable is downloaded (too big to carry:
# about 25 MB), its Authenticode signature checked (valid, signed by
# Microsoft Corporation), and run silently. When that fails (offline, say),
# the installation goes on: Parley works with a model server, and the
# engine says it cannot load its libraries until the runtime is installed.

!define PARLEY_VCREDIST_URL "https://aka.ms/vs/17/release/vc_redist.x64.exe"

!macro parley.vcRuntime
    # The redistributable writes its key in the 32-bit view (WOW6432Node)
    # or the 64-bit one, depending on its version: both are read.
    SetRegView 32
    ReadRegDWORD $0 HKLM "SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\x64" "Installed"
    SetRegView 64
    ${If} $0 == 1
        Goto parley_vc_ok
    ${EndIf}
    ReadRegDWORD $0 HKLM "SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\x64" "Installed"
    ${If} $0 == 1
        Goto parley_vc_ok
    ${EndIf}
    SetDetailsPrint both
    DetailPrint "Installing: Visual C++ runtime (for the built-in engine)"
    SetDetailsPrint listonly
    InitPluginsDir
    StrCpy $1 "$pluginsdir\vc_redist.x64.exe"
    nsExec::ExecToLog 'powershell -NoProfile -ExecutionPolicy Bypass -Command "$$ErrorActionPreference = \"Stop\"; [Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12; Invoke-WebRequest -UseBasicParsing -Uri \"${PARLEY_VCREDIST_URL}\" -OutFile \"$1\"; $$s = Get-AuthenticodeSignature \"$1\"; if ($$s.Status -ne \"Valid\" -or $$s.SignerCertificate.Subject -notmatch \"O=Microsoft Corporation\") { Remove-Item \"$1\"; exit 2 }"'
    Pop $0
    ${If} $0 == 0
        ExecWait '"$1" /install /quiet /norestart' $0
        # 3010: installed, a restart is pending; 1638: a newer one is there.
        ${If} $0 != 0
        ${AndIf} $0 != 3010
        ${AndIf} $0 != 1638
            DetailPrint "The Visual C++ runtime did not install (code $0): the built-in engine needs it."
        ${EndIf}
    ${Else}
        DetailPrint "The Visual C++ runtime could not be downloaded (code $0): the built-in engine needs it (${PARLEY_VCREDIST_URL})."
    ${EndIf}
    SetDetailsPrint both
    parley_vc_ok:
!macroend

!if "${ARCH}" == "arm64"
    !define PARLEY_ENGINE_SET "..\..\engine\win-arm64"
!else
    !define PARLEY_ENGINE_SET "..\..\engine\win-x64"
!endif

!macro parley.engineFiles
    SetOutPath $INSTDIR
    !if /FileExists "${PARLEY_ENGINE_SET}\llama.dll"
        File "${PARLEY_ENGINE_SET}\*.dll"
        File "${PARLEY_ENGINE_SET}\LICENSE.node-llama-cpp"
    !else
        !error "The engine's libraries are missing from ${PARLEY_ENGINE_SET}: run scripts/engine-libs.sh first"
    !endif
!macroend

# Only the files parley.engineFiles wrote.
!macro parley.engineUninstall
    Delete "$INSTDIR\llama.dll"
    Delete "$INSTDIR\ggml.dll"
    Delete "$INSTDIR\ggml.v0.4.0.dll"
    Delete "$INSTDIR\ggml-base.dll"
    Delete "$INSTDIR\ggml-cpu-*.dll"
    Delete "$INSTDIR\LICENSE.node-llama-cpp"
!macroend
