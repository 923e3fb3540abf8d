// The door scanner's camera (part of scanner.js: console.assets.ts serves the parts joined into that
// one file): the page's #video, read for QR codes by the browser's BarcodeDetector where it has
// one, else by jsQR, loaded only then.
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const SAME_CODE_MS = 1500;

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = src;
      s.onload = resolve;
      s.onerror = () => reject(new Error('could not load ' + src));
      document.head.append(s);
    });
  }

  /**
   * The camera, started by `start()`. `hooks.busy()` says a result is on screen (no code is read
   * then, and one held in front of the camera meanwhile stays the same scan); `hooks.frame(started)`
   * is told when each frame read began; `hooks.found(text)` gets each code shown to the camera, once
   * however many frames show it; `hooks.problem(key, values)` says why there is no camera.
   */
  function createCamera(jsqr, hooks) {
    let stream = null;
    let detector = null;
    let canvas = null;
    let lastCode = '';
    let lastSeen = 0;
    let detecting = false;

    async function start() {
      const button = $('start-camera');
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
        hooks.problem('noCamera');
        return;
      }
      try {
        stream = await navigator.mediaDevices.getUserMedia({
          audio: false,
          video: { facingMode: 'environment', width: { ideal: 1280 }, height: { ideal: 720 } },
        });
      } catch (err) {
        hooks.problem('cameraUnavailable', { error: err.name });
        return;
      }
      const video = $('video');
      video.srcObject = stream;
      await video.play().catch(() => {});
      if ('BarcodeDetector' in window) {
        try {
          const formats = await window.BarcodeDetector.getSupportedFormats();
          if (formats.includes('qr_code')) detector = new window.BarcodeDetector({ formats: ['qr_code'] });
        } catch {
          detector = null;
        }
      }
      if (!detector && !window.jsQR) await loadScript(jsqr);
      button.hidden = true;
      $('frame').hidden = false;
      $('camera').dataset.running = 'true';
      setTimeout(look, 0);
    }

    async function read(video) {
      if (detector) {
        const codes = await detector.detect(video);
        return codes.length ? codes[0].rawValue : null;
      }
      const width = Math.min(640, video.videoWidth);
      const height = Math.round((video.videoHeight * width) / video.videoWidth);
      canvas = canvas || document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      const g = canvas.getContext('2d', { willReadFrequently: true });
      g.drawImage(video, 0, 0, width, height);
      const found = window.jsQR(g.getImageData(0, 0, width, height).data, width, height, { inversionAttempts: 'attemptBoth' });
      return found ? found.data : null;
    }

    async function look() {
      if (!stream) return;
      const video = $('video');
      if (!detecting && !hooks.busy() && video.readyState >= 2 && video.videoWidth) {
        detecting = true;
        try {
          const started = performance.now();
          const text = await read(video);
          hooks.frame(started);
          const now = Date.now();
          if (text) {
            // a code held in front of the camera is one scan, however many frames show it
            const same = text === lastCode && now - lastSeen < SAME_CODE_MS;
            lastCode = text;
            lastSeen = now;
            if (!same) await hooks.found(text);
          }
        } catch {
          // a frame that cannot be read: the next one will do
        }
        detecting = false;
      } else if (hooks.busy() && lastCode) {
        lastSeen = Date.now();
      }
      setTimeout(look, 120);
    }

    return { start };
  }

  window.admitScanner = { ...window.admitScanner, createCamera };
})();
