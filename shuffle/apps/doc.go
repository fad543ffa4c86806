// Package apps holds licorice's benchmark apps: small but faithful ports,
// to the shuffle runtime, of real ordering bugs from the papers (MyTracks,
// ConnectBot, BarcodeScanner, VLC, Firefox, ToDoList, EventRacer's
// AsyncTask example) and of the harmless races that drown them in a plain
// race detector's output.
//
// Each [App] declares its ground truth: the pairs of handlers whose order
// is a real bug, with the data involved, and the harmless races it was
// built to produce. Every race not listed as harmful is harmless by
// construction. The evaluation compares race and detection reports to it;
// `licorice record --list` describes the apps.
package apps
